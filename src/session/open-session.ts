// Opening a session to append to it, and owning it while it is open: a new session (header line,
// then the latest pointer), an existing one (read, a torn last line ended), the latest one (its
// successor when it was migrated). Whoever opens a session holds its OS lock: the live process
// that has a session open is its owner, so the daemon leaves that session's migration to it and no
// two processes append to one session. The kernel frees the lock when the process dies.
import type { Logger } from 'pino';
import { SessionOwnedError } from '../errors.js';
import { acquireLock, lockHolder, sessionLockName, type HeldLock } from '../lock/os-lock.js';
import { parseSessionHolder, sessionHeldMessage, sessionHolderLine, type SessionHolderKind } from '../lock/session-holder.js';
import { silentLogger } from '../log/logger.js';
import type { Env, ProjectPaths } from '../paths.js';
import { AppendHandle } from './append-handle.js';
import { type HandoffLine, HeaderLine, type SessionLine, type Usage } from './format.js';
import { type PauseHook, pauseHookFromEnv } from './pause-hook.js';
import type { AgentMessage } from './session-recorder.js';
import { serializeLine, validated } from './session-lines.js';
import { assertSessionId, newSessionId } from './session-id.js';
import { type SessionContent, SessionStore } from './store.js';

export interface SessionOptions {
  paths: ProjectPaths;
  logger?: Logger;
  now?: () => Date;
  newId?: () => string;
  /** Test-only: pause at a migration stage (default: from AI_ZEN_TEST_PAUSE_AT in `env`). */
  pauseAt?: PauseHook;
  env?: Env;
  /** Who takes the session's lock, told to a process it refuses (default: an ai-zen process). */
  holder?: SessionHolderKind;
}

export interface CreateOptions extends SessionOptions {
  model: string;
  maxContextTokens: number;
  previousId?: string | null;
  /** Recorded in the header; defaults to the project root. */
  cwd?: string;
}

/** The side effects a session works through, defaults filled in. */
export interface SessionDependencies {
  readonly paths: ProjectPaths;
  readonly store: SessionStore;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly logger: Logger;
  readonly pause: PauseHook;
  readonly env: Env;
  readonly holder: SessionHolderKind;
}

export function sessionDependencies(options: SessionOptions): SessionDependencies {
  const logger = options.logger ?? silentLogger();
  return {
    paths: options.paths,
    store: new SessionStore(options.paths, { logger }),
    now: options.now ?? (() => new Date()),
    newId: options.newId ?? newSessionId,
    logger,
    pause: options.pauseAt ?? pauseHookFromEnv(options.env ?? process.env) ?? (async () => {}),
    env: options.env ?? process.env,
    holder: options.holder ?? 'ai-zen',
  };
}

/** A session file open for appending, with its lock held. */
export interface OwnedSessionFile {
  readonly header: HeaderLine;
  readonly handle: AppendHandle;
  readonly lock: HeldLock;
}

/** An existing session, opened: the file, and what its lines say. */
export interface ReopenedSessionFile extends OwnedSessionFile {
  /** The conversation as recorded, definition messages flagged. */
  readonly messages: AgentMessage[];
  readonly lastUsage: Usage | null;
  /** The session ends with a `migrated` line: its history goes on in a successor. */
  readonly closed: boolean;
  /** The migrate handoff line the file ends with (its document written, the new session missing). */
  readonly unfinished: HandoffLine | null;
}

/** Takes session `id`'s lock, or throws SessionOwnedError naming who holds it. */
export async function takeSessionLock(file: string, id: string, deps: Pick<SessionDependencies, 'env' | 'holder'>): Promise<HeldLock> {
  const name = sessionLockName(file);
  const lock = await acquireLock(name, { env: deps.env, holder: sessionHolderLine(deps.holder) });
  if (!lock) {
    // The lock names its holder, so the refusal says who has the session.
    const holder = parseSessionHolder(await lockHolder(name, { env: deps.env }).catch(() => null));
    throw new SessionOwnedError(id, sessionHeldMessage(id, holder));
  }
  return lock;
}

/** Writes a new session's header line, takes its lock and makes it the latest session. */
export async function createSessionFile(deps: SessionDependencies, options: CreateOptions): Promise<OwnedSessionFile> {
  const id = assertSessionId(deps.newId());
  const header = validated(
    HeaderLine,
    {
      type: 'session',
      v: 1,
      id,
      createdAt: deps.now().toISOString(),
      cwd: options.cwd ?? deps.paths.root,
      model: options.model,
      maxContextTokens: options.maxContextTokens,
      previousId: options.previousId ?? null,
    },
    'session header',
  );
  const handle = await AppendHandle.create(deps.paths.root, deps.store.sessionFile(id), serializeLine(header));
  let lock: HeldLock | null = null;
  try {
    // Taken once the file exists, so its name is computed from the same real path the daemon sees.
    // Until then the file holds only a header: nothing the daemon would act on.
    lock = await takeSessionLock(handle.file, id, deps);
    await deps.store.writeLatestPointer({ id, previousId: header.previousId });
  } catch (error) {
    await handle.close();
    await lock?.release();
    throw error;
  }
  return { header, handle, lock };
}

/** Opens session `id` to carry on appending to it. */
export async function openSessionFile(deps: SessionDependencies, id: string): Promise<ReopenedSessionFile> {
  // First the lock: reading and repairing the file is for its owner only.
  const lock = await takeSessionLock(deps.store.sessionFile(id), id, deps);
  let handle: AppendHandle | null = null;
  let content: SessionContent;
  try {
    content = await deps.store.read(id);
    handle = await AppendHandle.open(deps.paths.root, deps.store.sessionFile(id));
    // A torn last line must not swallow the next line: end it, readers skip it.
    if (content.tornTail) {
      deps.logger.warn({ sessionId: id }, 'session file ended in a torn line; starting a new line');
      await handle.write('\n');
    }
  } catch (error) {
    await handle?.close();
    await lock.release();
    throw error;
  }
  const messages: AgentMessage[] = [];
  let lastUsage: Usage | null = null;
  for (const line of content.lines) {
    if (line.type === 'message') messages.push(line.definition ? { message: line.message, definition: true } : { message: line.message });
    else if (line.type === 'usage') lastUsage = line.usage;
  }
  const closed = content.lines.at(-1)?.type === 'migrated';
  return {
    header: content.header,
    handle,
    lock,
    messages,
    lastUsage,
    closed,
    unfinished: closed ? null : unfinishedMigrationOf(content.lines),
  };
}

const MAX_SUCCESSOR_HOPS = 1000;

/**
 * The session the latest pointer names — or its successor when it ends with a `migrated` line and
 * the successor's file exists (a kill between that line and the pointer switch must still land
 * `--continue` in the new session). Null when there is no pointer.
 */
export async function latestSessionId(deps: SessionDependencies): Promise<string | null> {
  const pointer = await deps.store.readLatestPointer();
  if (pointer === null) return null;
  let id = pointer.id;
  for (let hop = 0; hop < MAX_SUCCESSOR_HOPS; hop += 1) {
    const content = await deps.store.read(id);
    const last = content.lines.at(-1);
    if (last?.type !== 'migrated' || !(await deps.store.exists(last.newId))) break;
    try {
      const successor = await deps.store.read(last.newId);
      // Only a session this one really handed off to; never an unrelated file that shares the id.
      if (successor.header.previousId !== id) {
        deps.logger.warn({ sessionId: id, successor: last.newId }, 'successor session names another predecessor; staying here');
        break;
      }
    } catch (error) {
      deps.logger.warn({ sessionId: id, successor: last.newId, error }, 'successor session unreadable; staying on its predecessor');
      break;
    }
    id = last.newId;
  }
  return id;
}

/** The last migrate handoff line, unless a message came after it (then the document is out of date). */
function unfinishedMigrationOf(lines: readonly SessionLine[]): HandoffLine | null {
  let unfinished: HandoffLine | null = null;
  for (const line of lines) {
    if (line.type === 'handoff') unfinished = line.mode === 'migrate' ? line : null;
    else if (line.type === 'message' || line.type === 'reopened') unfinished = null;
  }
  return unfinished;
}
