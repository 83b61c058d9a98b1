// A session source knows one agent's transcript format (ai-zen now; Claude Code and Codex CLI
// next, X3): which files are its, and how to fold their lines into a SessionState. The watcher
// and the rest of the daemon only see this interface, so a new source touches nothing else.
import type { Usage } from '../session/format.js';
import type { FileStamp, ResetReason } from './incremental-reader.js';

export type SessionSourceKind = 'ai-zen' | 'claude-code' | 'codex';

/** A handoff line as a session source reports it. */
export interface HandoffSeenInSession {
  readonly path: string;
  readonly executor: string;
  readonly mode: string;
  readonly at: string;
  /** What it cost, when the transcript says (ai-zen's handoff line does; added for the daemon's handoff.written). */
  readonly cost?: { readonly requests: number; readonly prompt_tokens: number; readonly completion_tokens: number };
}

/** What the daemon knows about one session file, derived from its lines alone. */
export interface SessionState {
  readonly kind: SessionSourceKind;
  readonly file: string;
  /** From the transcript when it says, else from the file name. */
  readonly sessionId: string;
  readonly model: string | null;
  /** The window; null when the transcript does not say (overflow cannot be judged then). */
  readonly maxContextTokens: number | null;
  readonly latestUsage: Usage | null;
  /** The session ended (ai-zen: a `migrated` line); a closed session never overflows. */
  readonly closed: boolean;
  readonly successorId: string | null;
  /** SPEC: latest usage prompt_tokens > maxContextTokens, and not closed. */
  readonly overflowed: boolean;
  readonly messageCount: number;
  readonly lastHandoff: HandoffSeenInSession | null;
  /** Lines skipped so far (unknown, corrupt, too long). */
  readonly skippedCount: number;
  /** Source-specific extras (the ai-zen header line, …). */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface SkipNotice {
  readonly file: string;
  readonly lineNumber: number;
  readonly offset: number;
  readonly reason: string;
}

export interface SessionUpdate {
  readonly state: SessionState;
  readonly previous: SessionState;
  /** Why the file was read again from the start, if it was. */
  readonly reset: ResetReason | null;
  /** The file is gone; the state is the last one known. */
  readonly missing: boolean;
  /** Appended bytes read by this update (equals the bytes appended since the last update). */
  readonly bytesRead: number;
  /** Bytes re-read only to check the file is still the one read before (a constant few hundred). */
  readonly checkBytesRead: number;
  readonly linesRead: number;
  /** Lines skipped by this update, for the log. */
  readonly skipped: readonly SkipNotice[];
  /** Not overflowed before, overflowed now: the moment to emit session.overflowed. */
  readonly overflowStarted: boolean;
  /** A new latest usage arrived. */
  readonly usageChanged: boolean;
  /** Every handoff line this update read, in order (one read may hold several; each doc is committed). */
  readonly handoffs: readonly HandoffSeenInSession[];
  /** The file as it was when this read began (null: missing). A later stat that differs means more to read. */
  readonly stamp: FileStamp | null;
}

export interface SessionReader {
  readonly file: string;
  readonly state: SessionState;
  /**
   * Reads what was appended since the last call (cheap when nothing changed). Concurrent calls
   * are queued, never interleaved. Throws only on I/O errors other than a missing file.
   */
  update(): Promise<SessionUpdate>;
  /** Running totals for the benchmark. */
  readonly counters: { readonly bytesRead: number; readonly checkBytesRead: number };
}

export interface SessionSource {
  readonly id: string;
  readonly kind: SessionSourceKind;
  /** Whether `file` (an absolute path) is a transcript of this source. */
  matches(file: string): boolean;
  createReader(file: string): SessionReader;
}

/** The first source that claims `file`, or null. */
export function findSource(sources: readonly SessionSource[], file: string): SessionSource | null {
  return sources.find((source) => source.matches(file)) ?? null;
}

export function isOverflowed(state: Pick<SessionState, 'closed' | 'latestUsage' | 'maxContextTokens'>): boolean {
  return !state.closed && state.latestUsage !== null && state.maxContextTokens !== null && state.latestUsage.prompt_tokens > state.maxContextTokens;
}
