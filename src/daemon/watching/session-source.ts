// A session source knows one agent's transcripts (ai-zen's own, Claude Code, Codex CLI; X3): where
// they live (the folders to watch), which files are its, how to fold their lines into a
// SessionState (context used, window, model, compactions, whether the session belongs to this
// repo), and — for another agent's sessions — what a handoff needs (is it live, the evidence for
// the offline document, the command that starts the successor). The watcher, the monitor and the
// status only see this interface: a new agent is one folder under `sources/` and a line in
// `sources/index.ts`.
import { type AgentWindowSettings, agentCompactsAt } from '../../config/agent-models.js';
import type { WatchedAgent } from '../../config/agent-names.js';
import type { DocPath } from '../../handoff/doc-path.js';
import type { ActivityDigest } from '../../handoff/activity-digest.js';
import type { AgentMessage } from '../../session/session-recorder.js';
import type { HandoffChecks, Usage } from '../../session/format.js';
import type { Logger } from 'pino';
import type { FileStamp, ReadOptions, ResetReason } from './incremental-reader.js';

/** Which agent wrote a transcript. */
export type AgentName = 'ai-zen' | WatchedAgent;
export type SessionSourceKind = AgentName;

/** A handoff line as a session source reports it. */
export interface HandoffSeenInSession {
  readonly path: string;
  readonly executor: string;
  readonly mode: string;
  readonly at: string;
  /** What it cost, when the transcript says (ai-zen's handoff line does; added for the daemon's handoff.written). */
  readonly cost?: { readonly requests: number; readonly prompt_tokens: number; readonly completion_tokens: number };
  /** The sealed document's sha256 (T1): without it, or with another, the document is not committed. */
  readonly sha256?: string;
  /** Secrets redacted before it was sealed (T5). */
  readonly redactions?: number;
  /** F1–F4: what the document still fails, when the writer checked it (ai-zen's handoff line says). */
  readonly checks?: HandoffChecks;
}

/** What the daemon knows about one session file, derived from its lines alone. */
export interface SessionState {
  readonly kind: SessionSourceKind;
  readonly file: string;
  /** The file name's (T2: a session's identity is its file name; ai-zen never takes it from the header). */
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
  /**
   * Set when the whole file is not taken as a session, and why (T2: a header whose id is not the
   * file name's). Such a file is never migrated, appended to or committed from; status shows why.
   */
  readonly refusedBecause?: string;
  /**
   * R19: the person declined the handoff of the current crossing in the chat (a `skip` line read
   * while over the window). The daemon leaves this crossing alone; usage at or below the window
   * clears it, so the next crossing is handed off as usual. Absent: nothing declined.
   */
  readonly declined?: { readonly at: string; readonly promptTokens: number } | null;
  /** Source-specific extras (the ai-zen header line, …). */
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * Another agent's session: the percent of the window at which the daemon hands it over, and
   * the one at which the agent compacts by itself. Absent for ai-zen sessions (they overflow at
   * the window, R19).
   */
  readonly thresholds?: SessionThresholds;
  /** Times the agent compacted its own history (Claude `compact_boundary`, Codex's zero reading), and the last one. */
  readonly compactions?: number;
  readonly lastCompactionAt?: string | null;
  /** The last compaction: the context just before it and who asked (Claude's trigger `auto`/`manual`; null: not said). */
  readonly lastCompaction?: { readonly at: string | null; readonly preTokens: number | null; readonly trigger: string | null } | null;
  /** The working directory the transcript names (another agent's: it decides whether the session is this repo's). */
  readonly cwd?: string | null;
  /** The transcript is another repo's (its cwd is outside this one): not listed, never handed off, no longer read. */
  readonly otherRepo?: boolean;
  /** When the session's first line was written (the grace window after a start). */
  readonly startedAt?: string | null;
  /** The context of the session's first reading: a session that started above its threshold hands off only after it grew. */
  readonly firstReadingTokens?: number | null;
  /**
   * The latest run of another agent's session is a script's (`claude -p`, `codex exec`): its last
   * reply is the script's output, so its Stop hook must not turn that turn into a handoff turn.
   */
  readonly scripted?: boolean;
  /**
   * Where the agent's turn stands, from its own lines (Claude Code): what the idle handoff judges.
   * Absent: the agent's fold does not say, and its sessions are never handed off while idle.
   */
  readonly turn?: SessionTurn;
}

/** The end of a session's conversation as its transcript shows it. */
export interface SessionTurn {
  /** The last reply's own timestamp and id (the idle stretch it starts); null: no reply yet. */
  readonly lastReplyAt: string | null;
  readonly lastReplyId: string | null;
  /**
   * The start of the last reply's text (its text blocks joined by a newline, whitespace runs as one
   * space, at most REPLY_HEAD_CHARS): the Stop hook compares it with the reply the agent says it ended on.
   */
  readonly lastReplyHead?: string;
  /** The tool calls of the agent's replies with no result yet (a question to the person is not one: it waits on them). */
  readonly runningToolIds: readonly string[];
  /** A prompt or a tool's result was sent and no reply has come yet: mid-turn. */
  readonly awaitingReply: boolean;
  /** The prompt cache's lifetime the API last reported writing to (5 or 60 minutes); null: not said yet. */
  readonly cacheMinutes: 5 | 60 | null;
}

/** How much of a reply's text is kept to recognise it (replyHead). */
export const REPLY_HEAD_CHARS = 120;

/** The start of a reply's text as SessionTurn.lastReplyHead keeps it. */
export function replyHead(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, REPLY_HEAD_CHARS);
}

/** Per-agent thresholds, in percent of the window (config `agents.<name>`). */
export interface SessionThresholds {
  /** Where the daemon hands off: the configured handoffAt, kept a margin below compactsAt and at or below handoffAtTokens. */
  readonly handoffAt: number;
  readonly warnAt: number;
  /** Where the agent compacts by itself (null: unknown). */
  readonly compactsAt: number | null;
  /** The absolute trigger (config `handoffAtTokens`): at this many tokens the session is over, whatever the percent. */
  readonly handoffAtTokens?: number | null;
  /** compactsAt was learned from this agent's own compactions (compaction-points.ts), not taken from the table. */
  readonly compactsAtLearned?: boolean;
}

/** How far below the agent's own compaction point the daemon hands off at the latest, in points. */
export const COMPACTION_MARGIN = 3;

/**
 * The thresholds a session runs by: the configured handoffAt, lowered to stay
 * COMPACTION_MARGIN points below where the agent compacts by itself and to handoffAtTokens when
 * that comes first (in whole percent, rounded down: never a target above the real point), never
 * above 100%; warnAt keeps its distance in proportion.
 */
export function sessionThresholds(input: {
  readonly handoffAt: number;
  readonly warnAt: number;
  readonly compactsAt: number | null;
  readonly compactsAtLearned?: boolean;
  readonly handoffAtTokens: number | null;
  readonly window: number | null;
}): SessionThresholds {
  let handoffAt = Math.min(input.handoffAt, 100);
  if (input.compactsAt !== null) handoffAt = Math.min(handoffAt, input.compactsAt - COMPACTION_MARGIN);
  if (input.handoffAtTokens !== null && input.window !== null && input.window > 0)
    handoffAt = Math.min(handoffAt, Math.floor((input.handoffAtTokens * 100) / input.window));
  handoffAt = Math.max(1, handoffAt);
  const warnAt = handoffAt < input.handoffAt ? Math.max(1, Math.floor((input.warnAt * handoffAt) / input.handoffAt)) : input.warnAt;
  return {
    handoffAt,
    warnAt: Math.min(warnAt, handoffAt),
    compactsAt: input.compactsAt,
    handoffAtTokens: input.handoffAtTokens,
    ...(input.compactsAtLearned ? { compactsAtLearned: true } : {}),
  };
}

/**
 * The thresholds of one agent's session on `model`: the agent's settings, and where it compacts —
 * the user's `models` entry, else the point learned from its own compactions, else `own` (the
 * agent's rule for this window, when it has one: Qwen Code, pi), else the model table. `own: null`
 * says the point is unknown until learned (pi before it knows the window).
 */
export function agentThresholds(
  agent: WatchedAgent,
  model: string | null,
  window: number | null,
  settings: AgentWindowSettings,
  own?: number | null,
): SessionThresholds {
  const learned = settings.learnedPoint?.(model) ?? null;
  const unknown = own === null && learned === null;
  return sessionThresholds({
    handoffAt: settings.handoffAt,
    warnAt: settings.warnAt,
    compactsAt: unknown ? null : agentCompactsAt(agent, model, settings.models, learned ?? own ?? null),
    compactsAtLearned: learned !== null,
    handoffAtTokens: settings.handoffAtTokens,
    window,
  });
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
  /** The agent compacted its own history in the lines this update read (that many times). */
  readonly compactionsSeen?: number;
  /** Every handoff line this update read, in order (one read may hold several; each doc is committed). */
  readonly handoffs: readonly HandoffSeenInSession[];
  /** The file as it was when this read began (null: missing). A later stat that differs means more to read. */
  readonly stamp: FileStamp | null;
  /** No stamp taken before the read (the file kept open): the reader's `stampNow()` gives it after the news. */
  readonly stampLater?: true;
}

export interface SessionReader {
  readonly file: string;
  readonly state: SessionState;
  /**
   * Reads what was appended since the last call (cheap when nothing changed). Concurrent calls
   * are queued, never interleaved. Throws only on I/O errors other than a missing file.
   * `sameFile`: the path names the file kept open since the last read (incremental-reader.ts).
   */
  update(options?: ReadOptions): Promise<SessionUpdate>;
  /** Whether the file is kept open between reads (incremental-reader.ts). */
  readonly keepsFileOpen: boolean;
  /** Closes the file kept open between reads: the next read opens the path again. */
  release(): void;
  /** After an update with `stampLater`: the file as that read left it (incremental-reader.ts). */
  stampNow(): FileStamp | null;
  /** Running totals for the benchmark. */
  readonly counters: { readonly bytesRead: number; readonly checkBytesRead: number };
}

/** How a transcript's name ends, but for a source that says otherwise (Cline's whole-JSON `.messages.json`). */
export const TRANSCRIPT_SUFFIX = '.jsonl';

export interface SessionSource {
  readonly id: string;
  readonly kind: SessionSourceKind;
  /** Whether `file` (an absolute path) is a transcript of this source. */
  matches(file: string): boolean;
  createReader(file: string): SessionReader;
  /** For people: 'Claude Code'. */
  readonly label?: string;
  /** How its transcripts' names end (absent: TRANSCRIPT_SUFFIX); the watcher reads no other file. */
  readonly transcriptSuffix?: string;
  /** Whether the agent's process has the session open (ai-zen's own: the session lock, asked by the daemon). */
  /** `except`: processes not to count (the agent process asking and those above it: its own fresh session is not this one). */
  isLive?(file: string, except?: readonly number[]): Promise<boolean>;
  /** Another agent's sessions: what a handoff needs. ai-zen's own go through the migrator. */
  readonly handoff?: ForeignHandoff;
}

/** How a transcript's evidence is read. */
export interface EvidenceOptions {
  /** Stop at the user's first request: all that tells which document a session was started from. */
  readonly firstRequestOnly?: boolean;
  /** A line too long to read (transcript-lines.ts) was left out. */
  readonly onSkippedLine?: (line: { readonly offset: number; readonly bytes: number }) => void;
}

/** A transcript's evidence: its messages, bounded, and what the ones let go of on the way did. */
export interface TranscriptEvidence {
  /** The user's requests the reader let go of, then the latest messages, in order. */
  readonly messages: readonly AgentMessage[];
  /** The tool activity and file names of the messages let go of; null: none was. */
  readonly earlier: ActivityDigest | null;
}

/** What the daemon needs to hand off another agent's session; the transcript is only ever read. */
export interface ForeignHandoff {
  /**
   * The transcript as ai-zen messages (user requests, assistant text, tool calls named as ai-zen's tools:
   * write/edit/exec with `[exit code N]`), for the offline and summary executors: read as a stream, in
   * bounded memory (kit/evidence.ts).
   */
  readEvidence(file: string, options?: EvidenceOptions): Promise<TranscriptEvidence>;
  /** The command that starts the successor fresh, reading the document (never a resume of the full session). */
  successorCommand(documentPath: string): string;
  /** What a person types in the agent for a fresh session in the same terminal, which then continues from the document; null: none. */
  readonly freshSessionCommand?: string | null;
  /** The agent's own hooks are installed in this repo: its Stop hook lets it write the document itself (self). */
  selfHooksInstalled?(): Promise<boolean>;
  /**
   * The agent may skip installed hooks without a word (Codex runs a hook only once the user trusted
   * it): self only for a session whose hook has already reached the daemon.
   */
  readonly selfHooksMustAnswer?: boolean;
  /** Its Stop hook runs before the turn's usage is written: a crossing is taken at the next Stop (foreign-crossing.ts). */
  readonly stopsBeforeUsage?: boolean;
  /**
   * Its Stop hook is a hook after a tool call (Cline's PostToolUse), and nothing it runs at a session's
   * start is heard: the turn's last reply still comes after the hook that saw the document done, and a
   * fresh session is told of its predecessor's document at its first tool call.
   */
  readonly stopAfterToolCall?: boolean;
  /** The Stop hook's lines telling the agent to write the document at `doc` with its own tools, and nothing else. */
  selfWriteInstructions?(doc: DocPath): readonly string[];
  /** The agent's own tools that change an existing file, as the correction names them ("Write or Edit", "apply_patch"). */
  readonly editTools?: string;
  /** How the agent reads a file without asking the person (the handoff brief), as the Stop hook names it ("Read tool"). */
  readonly readWith?: string;
}

/**
 * Where a source's transcripts for this repo live. Each folder is flat and gets one fs.watch (the
 * same watcher and reconcile pass as ai-zen's own sessions); the parents are watched for folders
 * coming and going. Listing must never read a transcript: other repos' files cost nothing.
 */
export interface TranscriptFolders {
  list(): Promise<{ readonly folders: readonly string[]; readonly parents: readonly string[] }>;
  /** Made when missing (ai-zen's own folder); another agent's folders are never created. */
  readonly create: boolean;
  /**
   * One folder, known without reading the disk: listed before the daemon's socket answers. A shared
   * folder's listing reads a head of every file in it (Codex: 30,000 rollouts made `start` 9–12 s).
   */
  readonly fixed?: boolean;
}

/** A source with its folders: what the daemon watches. */
export interface WatchedSource extends SessionSource {
  readonly folders: TranscriptFolders;
  /**
   * Sessions that are not one file each (opencode's: rows of one database in the folder): the source
   * watches each of its folders itself. Absent: one session file per transcript (session-watcher.ts).
   */
  readonly watchFolder?: (options: FolderSessionsOptions) => FolderSessions;
}

/** What watches one folder of a source's sessions: the watcher of its files, or the source's own. */
export interface FolderSessions {
  /** Lists (or reads, as history) the sessions present, before the daemon answers. */
  list(): Promise<void>;
  /** Reads what list() found, then watches. */
  start(): Promise<void>;
  states(): SessionState[];
  state(file: string): SessionState | null;
  refresh(file: string): Promise<void>;
  close(): Promise<void>;
}

export interface FolderSessionsOptions {
  readonly folder: string;
  readonly logger: Logger;
  /** How often the folder is checked for what its watch missed. */
  readonly reconcileIntervalMs?: number;
  /** Every update that read something; `initial`: history read at start, not news. */
  readonly onUpdate: (update: SessionUpdate, info: { readonly initial: boolean }) => void;
}

/** One fixed folder. */
export function fixedFolder(folder: string, create: boolean): TranscriptFolders {
  return { create, fixed: true, list: async () => ({ folders: [folder], parents: [] }) };
}

/** The first source that claims `file`, or null. */
export function findSource(sources: readonly SessionSource[], file: string): SessionSource | null {
  return sources.find((source) => source.matches(file)) ?? null;
}

export function isOverflowed(state: Pick<SessionState, 'closed' | 'latestUsage' | 'maxContextTokens'>): boolean {
  return (
    !state.closed &&
    state.latestUsage !== null &&
    state.maxContextTokens !== null &&
    state.latestUsage.prompt_tokens > state.maxContextTokens
  );
}

/** Another agent's session is over its handoffAt (a share of the window), and neither closed nor another repo's. */
export function isOverThreshold(
  state: Pick<SessionState, 'closed' | 'latestUsage' | 'maxContextTokens' | 'thresholds' | 'otherRepo'>,
): boolean {
  if (state.closed || state.otherRepo || !state.thresholds || state.latestUsage === null) return false;
  const tokens = state.latestUsage.prompt_tokens;
  const atTokens = state.thresholds.handoffAtTokens;
  if (atTokens != null && tokens >= atTokens) return true;
  return state.maxContextTokens !== null && tokens * 100 >= state.thresholds.handoffAt * state.maxContextTokens;
}

/**
 * Another agent's session before its first line: nothing read, nothing measured yet, its window and
 * thresholds those of an unknown model. Each agent's fold starts from this.
 */
export function emptyAgentState(input: {
  readonly kind: SessionSourceKind;
  readonly file: string;
  readonly sessionId: string;
  readonly window: number | null;
  readonly thresholds: SessionThresholds;
  readonly details: object;
}): SessionState {
  return {
    kind: input.kind,
    file: input.file,
    sessionId: input.sessionId,
    model: null,
    maxContextTokens: input.window,
    latestUsage: null,
    closed: false,
    successorId: null,
    overflowed: false,
    messageCount: 0,
    lastHandoff: null,
    skippedCount: 0,
    details: input.details as Readonly<Record<string, unknown>>,
    thresholds: input.thresholds,
    compactions: 0,
    lastCompactionAt: null,
    cwd: null,
    otherRepo: false,
    startedAt: null,
    firstReadingTokens: null,
  };
}
