// Errors users can act on: a code, a one-line message, and the cause kept for the log.
// The CLI edge turns an AiZenError into one line on stderr and an exit code; the stack goes to the log.
import { shortId } from './short-id.js';

export type ErrorCode =
  | 'config' // a config file or env value is wrong
  | 'model' // the model endpoint failed (HTTP error, refused, timeout, bad key)
  | 'aborted' // the in-flight request was aborted by the user
  | 'context-guard' // ContextGuardPlugin refused the request (R14)
  | 'session' // a session file is missing, unreadable or not ours
  | 'usage' // the command line is wrong
  | 'handoff' // a handoff could not be completed
  | 'confinement' // a path escapes the project root
  | 'daemon' // the daemon is not running, already running, or did not answer
  | 'ipc'; // a malformed or refused IPC exchange

const MARK = Symbol.for('ai-zen.error');

export class AiZenError extends Error {
  readonly [MARK] = true;
  readonly code: ErrorCode;
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AiZenError';
    this.code = code;
    this.exitCode = options.exitCode ?? (code === 'usage' ? 2 : 1);
  }

  /** Works across module copies, unlike instanceof. */
  static isInstance(value: unknown): value is AiZenError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}

/** One line for a person: the message of an AiZenError, what a file-system refusal means, or a generic line for anything else. */
export function describeError(error: unknown): string {
  if (AiZenError.isInstance(error)) return error.message;
  const refused = describeFileSystemRefusal(error);
  if (refused !== null) return refused;
  if (error instanceof Error) return `unexpected error: ${error.message.split('\n')[0]}`;
  return `unexpected error: ${String(error)}`;
}

/** The system refusing a file operation is not a bug of ai-zen but a fact about the place (a read-only repo, a full disk). */
const REFUSALS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied: ai-zen needs to write in the repo (its .ai-zen folder); is the repo read-only for you?',
  EPERM: 'operation not permitted: ai-zen needs to write in the repo (its .ai-zen folder)',
  EROFS: 'read-only file system: ai-zen needs to write in the repo (its .ai-zen folder)',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};
const VERBS: Readonly<Record<string, string>> = { mkdir: 'create', open: 'open', rename: 'rename', unlink: 'remove', write: 'write' };

function describeFileSystemRefusal(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  const why = typeof code === 'string' ? REFUSALS[code] : undefined;
  if (why === undefined || typeof path !== 'string') return null;
  return `cannot ${(syscall && VERBS[syscall]) ?? 'use'} ${path}: ${why}`;
}

const SESSION_OWNED_MARK = Symbol.for('ai-zen.error.session-owned');

/**
 * The session is open in another live ai-zen process (it holds the session's lock). Code acts on
 * this class, never on the wording: the daemon leaves such a session to its owner.
 */
export class SessionOwnedError extends AiZenError {
  readonly [SESSION_OWNED_MARK] = true;
  readonly sessionId: string;

  constructor(
    sessionId: string,
    message = `session ${shortId(sessionId)} is open in another ai-zen process`,
    options: { cause?: unknown } = {},
  ) {
    super('session', message, options);
    this.name = 'SessionOwnedError';
    this.sessionId = sessionId;
  }

  static override isInstance(value: unknown): value is SessionOwnedError {
    return AiZenError.isInstance(value) && (value as unknown as Record<symbol, unknown>)[SESSION_OWNED_MARK] === true;
  }
}
