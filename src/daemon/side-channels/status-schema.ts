// The shapes of the daemon's IPC answers (protocol v1, a public contract: README). The daemon
// builds them, the CLI validates them with these same schemas before printing anything.
import { z } from 'zod';
import { ForkCost, HandoffTrigger } from '../../events.js';
import { HandoffChecks } from '../../session/format.js';
import { SessionStanding } from './session-states.js';

export const Owner = z.enum(['live', 'daemon', 'none', 'unknown']);

export { SessionStanding };

/**
 * Where a session's idle handoff stands: off (not for it: the setting, the agent, its size or its
 * cache, `why`) · busy (mid-turn or running a tool) · old (idle past its point before the daemon saw
 * it) · waiting (handed off at `at` if it stays idle; its cache warm until `cacheUntil`) ·
 * handed-off (at `at`, to `document`).
 */
export const IdleInfo = z.object({
  state: z.enum(['off', 'busy', 'old', 'waiting', 'handed-off']),
  why: z.string().nullable(),
  at: z.string().nullable(),
  /** When the prompt cache of the session's last reply runs out; null: its lifetime is not known. */
  cacheUntil: z.string().nullable(),
  document: z.string().nullable(),
  /** Handed off: what continuing fresh from the document starts with, and what resuming re-writes to the cache (USD null: no price known). */
  onReturn: z.object({ freshTokens: z.number().nullable(), resumeTokens: z.number(), resumeDollars: z.number().nullable() }).optional(),
});
export type IdleInfo = z.infer<typeof IdleInfo>;

export const SessionInfo = z.object({
  id: z.string(),
  /** Project-relative path of the session file. */
  file: z.string(),
  source: z.string(),
  model: z.string().nullable(),
  promptTokens: z.number().nullable(),
  maxContextTokens: z.number().nullable(),
  /** promptTokens / maxContextTokens in whole percent (may pass 100); null when either is unknown. */
  percent: z.number().nullable(),
  /** live: an ai-zen process has the session open (it holds the session lock) · daemon: the daemon is migrating it now. */
  owner: Owner,
  closed: z.boolean(),
  successorId: z.string().nullable(),
  overflowed: z.boolean(),
  /** What the daemon did about the current overflow: 'left to its owner', 'migrating', 'migrated to …', 'failed: …'. */
  action: z.string().nullable(),
  /** Where it stands (always set by this daemon, optional for older ones). */
  state: SessionStanding.optional(),
  /** Which agent's session (X3; always set by this daemon, optional for older ones): `ai-zen`, `claude-code`, `codex`. */
  agent: z.string().optional(),
  /** Absolute path of the transcript (another agent's lives outside the repo). */
  transcript: z.string().optional(),
  /** Percent of the window at which the daemon hands the session over (ai-zen: 100, the window itself). */
  handoffAt: z.number().nullable().optional(),
  /** Percent of the window at which the agent compacts by itself (null: not known, or ai-zen). */
  compactsAt: z.number().nullable().optional(),
  /** Times the agent compacted its own history, and the last time (Claude `compact_boundary`). */
  compactions: z.number().optional(),
  lastCompactionAt: z.string().nullable().optional(),
  /** The command that starts a fresh successor from the latest handoff document of this session. */
  successorCommand: z.string().nullable().optional(),
  /**
   * Another agent's session started from a handoff document (its first request names
   * it): that document and the session it was written for (null when this daemon did not see it).
   */
  previous: z.object({ path: z.string(), sessionId: z.string().nullable() }).nullable().optional(),
  /**
   * The session's last readings since this daemon started, oldest first (a bounded
   * ring): the share of the window, and whether the agent compacted or a handoff line came with it.
   */
  usage: z
    .array(z.object({ at: z.string(), percent: z.number(), compacted: z.boolean().optional(), handoff: z.boolean().optional() }))
    .optional(),
  /** Another agent's session whose agent may be handed off while idle (Claude Code): where that stands. */
  idle: IdleInfo.optional(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const HandoffInfo = z.object({
  path: z.string(),
  sessionId: z.string(),
  executor: z.string(),
  mode: z.string(),
  at: z.string(),
  /** pending: not tried yet · committed · deferred: not committed, `reason` says why · off: auto-commit is off. */
  state: z.enum(['pending', 'committed', 'deferred', 'off']),
  commit: z.string().nullable(),
  /** daemon.commit "ref": the side ref the commit is on; null or absent: the branch checked out. */
  ref: z.string().nullable().optional(),
  /** Why it is not committed (yet); null once committed or while pending. */
  reason: z.string().nullable(),
  attempts: z.number(),
  /** Which agent's session it hands off, and the command that starts its successor (X3; null for ai-zen's own). */
  agent: z.string().nullable().optional(),
  successorCommand: z.string().nullable().optional(),
  /** T5: secrets redacted from the document before it was sealed; null when its line does not say. */
  redactions: z.number().nullable().optional(),
  /** F1–F4: what the document still fails (every list empty: checked ✓); absent when it was not checked. */
  checks: HandoffChecks.optional(),
  /** R11: the executors that failed before the one that wrote it (another agent's session, X3). */
  downgrades: z.array(z.object({ from: z.string(), reason: z.string() })).optional(),
  /** What set it off: threshold, idle (the session sat idle with its cache warm), precompact, hand; absent: not recorded. */
  trigger: HandoffTrigger.optional(),
  /** Written by a fork of the session: its own turn's tokens and their price (USD null: not known). */
  forkCost: ForkCost.optional(),
});
export type HandoffInfo = z.infer<typeof HandoffInfo>;

const Known = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion('known', [z.object({ known: z.literal(true), value }), z.object({ known: z.literal(false), why: z.string() })]);

export const GitFactsSchema = z.looseObject({
  branch: z.string().nullable(),
  head: z.object({ sha: z.string(), shortSha: z.string(), subject: z.string() }).nullable(),
  staged: z.array(z.string()),
  unstaged: z.array(z.string()),
  untracked: z.array(z.string()),
  conflicted: z.array(z.string()).optional(),
  upstream: z.string().nullable(),
  ahead: z.number().nullable(),
  behind: z.number().nullable(),
  operation: z.string().nullable(),
});

export const PortFactSchema = z.looseObject({ pid: z.number(), command: z.string(), port: z.number(), address: z.string() });

export const FactsInfo = z.object({
  capturedAt: z.string(),
  root: z.string(),
  git: Known(GitFactsSchema),
  ports: Known(z.array(PortFactSchema)),
});
export type FactsInfo = z.infer<typeof FactsInfo>;

export const StatusInfo = z.object({
  pid: z.number(),
  repo: z.string(),
  /** The IPC socket's path. */
  socket: z.string(),
  log: z.string(),
  startedAt: z.string(),
  version: z.string(),
  protocolVersion: z.number(),
  /** False while the first scan of the session folder runs. */
  ready: z.boolean(),
  autoCommit: z.boolean(),
  /** Where handoff documents are committed: the branch checked out, a side ref (`commitRef`), or nowhere. */
  commitMode: z.enum(['branch', 'ref', 'off']).optional(),
  commitRef: z.string().nullable().optional(),
  notifications: z.boolean(),
  /** The model the daemon's own handoffs use; null: none configured, handoffs are offline (X1). */
  model: z.string().nullable(),
  executor: z.string(),
  /** The config files say what the daemon does not apply: "config changed: restart to apply (…)", or a file that does not parse. */
  config: z.string().nullable().optional(),
  /** The handoff the daemon is running now. */
  migration: z.object({ sessionId: z.string(), mode: z.string(), since: z.string() }).nullable(),
  /** The sessions not folded out (session-states.ts); with `all`, the exited and handed-off ones too. */
  sessions: z.array(SessionInfo),
  /** Sessions handed off to a successor (listed only with `all`). */
  closedSessions: z.number(),
  /** Sessions no process runs any more, not handed off (listed only with `all`; optional for older daemons). */
  exitedSessions: z.number().optional(),
  git: FactsInfo.shape.git,
  ports: FactsInfo.shape.ports,
  factsCapturedAt: z.string(),
  /** The latest handoffs, oldest first, each with its commit or why it is not committed yet. */
  handoffs: z.array(HandoffInfo),
  handoffCount: z.number(),
});
export type StatusInfo = z.infer<typeof StatusInfo>;

export const SessionsReply = z.object({ sessions: z.array(SessionInfo) });
export const HandoffsReply = z.object({ handoffs: z.array(HandoffInfo) });

export const HandoffReply = z.object({
  mode: z.string(),
  sessionId: z.string(),
  path: z.string(),
  executor: z.string(),
  downgrades: z.array(z.object({ from: z.string(), reason: z.string() })),
  newSessionId: z.string().nullable(),
  /** Whose session it was (Claude Code's and Codex's are handed off by hand too); absent: ai-zen's. */
  agent: z.string().optional(),
  /** Another agent's session: the command that starts its successor fresh from the document. */
  successorCommand: z.string().optional(),
});
export type HandoffReply = z.infer<typeof HandoffReply>;

export const StopReply = z.object({ stopping: z.literal(true), pid: z.number() });

/** `transcript <id> --last N` — the turns a person saw, the newest last, bounded in bytes. */
export const TranscriptReply = z.object({
  sessionId: z.string(),
  agent: z.string(),
  /** Every visible turn of the session (the reply holds the last of them). */
  total: z.number(),
  turns: z.array(z.object({ role: z.enum(['user', 'assistant']), text: z.string() })),
});
export type TranscriptReply = z.infer<typeof TranscriptReply>;

/** What Claude Code's statusline shows beside its own reading of the window. */
export const StatuslineReply = z.object({
  /** Percent of the window where the daemon hands the session off; null: not known. */
  handoffAt: z.number().nullable(),
  /** Percent where the agent compacts by itself (learned, else the model table); null: not known. */
  compactsAt: z.number().nullable(),
  /** compactsAt was learned from this agent's own compactions. */
  compactsAtLearned: z.boolean(),
  /** When the latest handoff document of this session (else of the repo) was written; null: none. */
  lastDocumentAt: z.string().nullable(),
  /** Whether lastDocumentAt is this session's (false: the repo's latest, another session's). */
  lastDocumentOfSession: z.boolean(),
  /** The session sits idle: its cache warm until `cacheUntil`, or handed off while idle at `handedOffAt`. */
  idle: z.object({ cacheUntil: z.string().nullable(), handedOffAt: z.string().nullable() }).nullable().optional(),
});
export type StatuslineReply = z.infer<typeof StatuslineReply>;
