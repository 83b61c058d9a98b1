// The answers to IPC requests (D5). Replies follow status-schema.ts; `handoff` and `migrate` go
// through the daemon's migrator — the ONE migration service — and refuse a session that a live
// ai-zen process owns: its owner is the one to hand it over.
import { promises as fs } from 'node:fs';
import { AiZenError, SessionOwnedError } from '../../errors.js';
import { mapLimited } from '../../map-limited.js';
import type { IpcHandlers } from '../../ipc/server.js';
import { PROTOCOL_VERSION } from '../../ipc/protocol.js';
import type { Facts } from '../../probe/facts.js';
import type { ExecutorName } from '../../session/format.js';
import { SessionStore } from '../../session/store.js';
import { relativeToRoot, type DaemonCore } from './daemon-core.js';
import { formatTokens } from '../../format-tokens.js';
import type { HandoffRecord } from '../committing/handoff-committer.js';
import type { SessionState } from '../watching/session-source.js';
import type { FactsInfo, HandoffInfo, HandoffReply, IdleInfo, SessionInfo, StatusInfo } from './status-schema.js';
import type { IdleStanding } from '../handoffs/foreign-sessions.js';
import { namesSession, shortId } from '../../short-id.js';
import { usagePercent } from '../../usage-percent.js';
import { EXITED_QUIET_MS, isFolded, type SessionStanding } from './session-states.js';

/** How many handoffs `status` lists (all of them: `handoffs`). */
export const STATUS_HANDOFFS = 10;

export function createIpcHandlers(core: DaemonCore): IpcHandlers {
  return {
    async status(params) {
      const [everySession, facts] = await Promise.all([sessionInfos(core), core.facts.get(), core.committer.settled()]);
      // A session handed off to its successor, or whose process exited, is folded out of the list.
      const handedOff = everySession.filter((session) => session.state === 'handed-off');
      const exited = everySession.filter((session) => session.state === 'exited');
      const sessions = params?.all === true ? everySession : everySession.filter((session) => !isFolded(session.state));
      const handoffs = core.committer.list();
      const status: StatusInfo = {
        pid: process.pid,
        repo: core.root,
        socket: core.socketPath,
        log: core.logFile,
        startedAt: core.startedAt,
        version: core.version,
        protocolVersion: PROTOCOL_VERSION,
        ready: core.ready(),
        autoCommit: core.config.daemon.autoCommit,
        commitMode: core.config.daemon.commit,
        commitRef: core.config.daemon.commit === 'ref' ? core.config.daemon.commitRef : null,
        notifications: core.config.daemon.notifications,
        model: core.config.modelConfigured ? core.config.model : null,
        executor: core.config.modelConfigured ? core.config.executor : 'offline',
        config: core.configNote?.() ?? null,
        migration: core.migrator.current,
        sessions,
        closedSessions: handedOff.length,
        exitedSessions: exited.length,
        git: facts.git as StatusInfo['git'],
        ports: facts.ports as StatusInfo['ports'],
        factsCapturedAt: facts.capturedAt,
        handoffs: handoffs.slice(-STATUS_HANDOFFS).map(handoffInfo),
        handoffCount: handoffs.length,
      };
      return status;
    },
    async sessions() {
      return { sessions: await sessionInfos(core) };
    },
    async handoffs() {
      await core.committer.settled();
      return { handoffs: core.committer.list().map(handoffInfo) };
    },
    async facts(params) {
      const facts = params?.refresh ? await core.facts.capture() : await core.facts.get({ maxAgeMs: 1000 });
      return factsInfo(facts);
    },
    handoff: (params) => runHandoff(core, 'handoff', params?.session, params?.executor, params?.goal),
    migrate: (params) => runHandoff(core, 'migrate', params?.session, params?.executor, params?.goal),
    async stop() {
      // Answer first: the shutdown closes this very connection.
      setImmediate(() => core.requestStop('stop request'));
      return { stopping: true, pid: process.pid };
    },
  };
}

async function runHandoff(
  core: DaemonCore,
  mode: 'handoff' | 'migrate',
  session: string | undefined,
  executor: ExecutorName | undefined,
  goal: string | undefined,
): Promise<HandoffReply> {
  if (session === undefined) return runOwnHandoff(core, mode, await latestSession(core), executor, goal);
  const target = await findSession(core, session);
  if (target.kind === 'ai-zen') return runOwnHandoff(core, mode, target.sessionId, executor, goal);
  return runForeignHandoff(core, mode, target, executor, goal);
}

interface NamedSession {
  readonly sessionId: string;
  readonly kind: string;
  /** The transcript (another agent's); null for an ai-zen session the watcher has not read yet. */
  readonly file: string | null;
}

/** How many candidates one line names, for an ambiguous or unknown id. */
const CANDIDATES_SHOWN = 6;

/**
 * The one session `given` names: its whole id, or a unique prefix of the id or of the
 * short id `status` prints — ai-zen's own sessions and this repo's Claude Code and Codex ones alike.
 */
async function findSession(core: DaemonCore, given: string): Promise<NamedSession> {
  const known = new Map<string, NamedSession>();
  for (const state of core.watcher.states()) {
    if (state.otherRepo || state.refusedBecause !== undefined) continue;
    known.set(state.sessionId, { sessionId: state.sessionId, kind: state.kind, file: state.file });
  }
  // An ai-zen session written a moment ago may not be read yet: its file is enough to name it.
  for (const id of await new SessionStore(core.paths).list().catch(() => [] as string[]))
    if (!known.has(id)) known.set(id, { sessionId: id, kind: 'ai-zen', file: null });
  const exact = known.get(given);
  if (exact) return exact;
  const matches = [...known.values()].filter((candidate) => namesSession(given, candidate.sessionId));
  if (matches.length === 1) return matches[0]!;
  const listed = (candidates: readonly NamedSession[]) => {
    const shown = [...candidates]
      .sort((a, b) => a.sessionId.localeCompare(b.sessionId))
      .slice(0, CANDIDATES_SHOWN)
      .map((candidate) => `${shortId(candidate.sessionId)} (${candidate.kind})`);
    const more = candidates.length > CANDIDATES_SHOWN ? ` and ${candidates.length - CANDIDATES_SHOWN} more` : '';
    return `${shown.join(', ')}${more}`;
  };
  if (matches.length > 1)
    throw new AiZenError('session', `${JSON.stringify(given)} names ${matches.length} sessions: ${listed(matches)}; give more of the id`);
  // Offered are the sessions `status` lists: not those handed off or exited (the same states).
  const folded = new Set((await sessionInfos(core)).filter((info) => isFolded(info.state)).map((info) => info.id));
  const open = [...known.values()].filter((candidate) => !folded.has(candidate.sessionId));
  throw new AiZenError(
    'session',
    known.size === 0
      ? `no session ${JSON.stringify(given)} in ${core.root}: there is none yet`
      : open.length === 0
        ? `no session ${JSON.stringify(given)} in ${core.root}; none is open (status --all lists the ${known.size} handed off or exited)`
        : `no session ${JSON.stringify(given)} in ${core.root}; open ones: ${listed(open)}`,
  );
}

/** Another agent's session, by hand: a document from its transcript, which is only read. */
async function runForeignHandoff(
  core: DaemonCore,
  mode: 'handoff' | 'migrate',
  target: NamedSession,
  executor: ExecutorName | undefined,
  goal: string | undefined,
): Promise<HandoffReply> {
  const short = shortId(target.sessionId);
  if (mode === 'migrate')
    throw new AiZenError(
      'usage',
      `session ${short} is a ${target.kind} session: it is handed off, not migrated (ai-zen-daemon handoff ${short}, then the command it prints)`,
    );
  if (executor === 'self')
    throw new AiZenError(
      'usage',
      `session ${short} is a ${target.kind} session: --executor self is its own Stop hook's to run; use summary or offline`,
    );
  const result = await core.foreign.handOver(target.file!, 'by hand', {
    byHand: true,
    ...(executor === 'offline' ? { offline: true } : {}),
    ...(goal !== undefined ? { goal } : {}),
  });
  if (!result) {
    const action = core.foreign.actionFor(target.file!);
    throw new AiZenError(
      'handoff',
      `no handoff document for session ${short}: ${action?.replace(/^failed: /, '') ?? 'the daemon cannot hand it over'}`,
    );
  }
  return {
    mode: 'handoff',
    sessionId: target.sessionId,
    path: result.path,
    executor: result.executor,
    downgrades: result.downgrades.map((entry) => ({ from: entry.from, reason: entry.reason })),
    newSessionId: null,
    agent: target.kind,
    successorCommand: result.successorCommand,
  };
}

/** One of ai-zen's own sessions: the daemon's migrator, unless a live ai-zen process owns it. */
async function runOwnHandoff(
  core: DaemonCore,
  mode: 'handoff' | 'migrate',
  sessionId: string,
  executor: ExecutorName | undefined,
  goal: string | undefined,
): Promise<HandoffReply> {
  const store = new SessionStore(core.paths);
  if (!(await store.exists(sessionId))) throw new AiZenError('session', `no session ${sessionId} in ${core.root}`);
  // The daemon itself holds the session's lock while it migrates it; that is no
  // other process, and a second migration of it would only find it migrated.
  const running = core.migrator.current;
  if (running?.sessionId === sessionId) throw new AiZenError('session', daemonMigratingLine(sessionId, running.since));
  if (await core.isOwned(store.sessionFile(sessionId))) {
    throw new SessionOwnedError(
      sessionId,
      `session ${shortId(sessionId)} is open in another ai-zen process; its owner hands it over (/${mode} there)`,
    );
  }
  const outcome = await core.migrator.run({
    sessionId,
    mode,
    reason: 'ipc',
    ...(executor ? { executor } : {}),
    ...(goal !== undefined ? { goal } : {}),
  });
  return {
    mode: outcome.mode,
    sessionId: outcome.sessionId,
    path: outcome.path,
    executor: outcome.executor,
    downgrades: outcome.downgrades.map((entry) => ({ from: entry.from, reason: entry.reason })),
    newSessionId: outcome.newSessionId,
  };
}

function daemonMigratingLine(sessionId: string, since: string): string {
  return `session ${shortId(sessionId)} is being migrated by this daemon right now (since ${since}); ai-zen-daemon status shows its new session when it is done`;
}

/** The latest pointer's session, or its successor when it was migrated (as `--continue` does). */
async function latestSession(core: DaemonCore): Promise<string> {
  const store = new SessionStore(core.paths);
  const pointer = await store.readLatestPointer();
  if (!pointer) throw new AiZenError('session', `no session in ${core.root} yet; name one (ai-zen-daemon sessions lists them)`);
  let id = pointer.id;
  for (let hop = 0; hop < 1000; hop += 1) {
    const state = core.watcher.state(store.sessionFile(id));
    if (!state?.closed || !state.successorId) break;
    id = state.successorId;
  }
  return id;
}

/**
 * Closed as status tells it: a session the daemon is migrating right now stays open (action
 * 'migrating') until that migration is over — its file says `migrated` a moment before the daemon
 * has put the latest-session pointer back, and nobody should see the one without the other.
 */
function isClosed(core: DaemonCore, state: SessionState): boolean {
  return state.closed && core.migrator.current?.sessionId !== state.sessionId;
}

/** Ownership probes (socket connects) in flight at once during status/sessions. */
const OWNER_PROBES = 16;

async function sessionInfos(core: DaemonCore): Promise<SessionInfo[]> {
  // Another repo's transcript (its cwd is elsewhere) is not this repo's session.
  const states = core.watcher.states().filter((state) => !state.otherRepo);
  // Another agent's session is handed off once a later session started from its document.
  const documents = core.committer
    .list()
    .filter((record) => record.agent != null && record.agent !== 'ai-zen')
    .map((record) => ({ path: record.path, sessionId: record.sessionId, at: record.at }));
  const successors = await core.continued.successors(states, documents).catch(() => new Map<string, string>());
  // A few ownership probes at a time: one socket each, and thousands at once left ~21 MB more
  // resident after a status of 1,000 sessions (measured; 3.6 MB with 16 at a time).
  const infos = await mapLimited(states, OWNER_PROBES, (state) => sessionInfo(core, state, successors.get(state.sessionId) ?? null));
  return infos.sort((a, b) => a.id.localeCompare(b.id));
}

async function sessionInfo(core: DaemonCore, listed: SessionState, startedFromIt: string | null): Promise<SessionInfo> {
  // The probes first (each awaits: the watcher may read the file meanwhile) ...
  const closedOrMigrating = isClosed(core, listed) || core.migrator.current?.sessionId === listed.sessionId;
  const owned = closedOrMigrating ? false : await core.isOwned(listed.file).catch(() => false);
  const quiet = !closedOrMigrating && startedFromIt === null && !owned && (await hasExited(core, listed.file));
  const previous = listed.kind === 'ai-zen' ? undefined : await core.continued.previousOf(listed).catch(() => null);
  // ... then the state, the action and the idle standing below, read at one moment: a reply never pairs
  // the crossing's action with a reading from before it.
  const state = core.watcher.state(listed.file) ?? listed;
  const promptTokens = state.latestUsage?.prompt_tokens ?? null;
  const closed = isClosed(core, state);
  const handedOff = closed || startedFromIt !== null;
  // The daemon holds the lock of the session it is migrating: that owner is the daemon, not a live process.
  const daemonMigrating = core.migrator.current?.sessionId === state.sessionId;
  const percent = promptTokens !== null && state.maxContextTokens !== null ? usagePercent(promptTokens, state.maxContextTokens) : null;
  const exited = quiet && !handedOff && !daemonMigrating;
  const action = core.monitor.actionFor(state.file);
  const successor = core.monitor.successorCommandFor(state.file);
  return {
    id: state.sessionId,
    file: relativeToRoot(core.root, state.file),
    source: state.kind,
    model: state.model,
    promptTokens,
    maxContextTokens: state.maxContextTokens,
    percent,
    owner: daemonMigrating ? 'daemon' : owned ? 'live' : 'none',
    closed,
    successorId: state.successorId ?? startedFromIt,
    overflowed: state.overflowed,
    state: standingOf({ handedOff, exited, overflowed: state.overflowed, percent }),
    action:
      state.refusedBecause !== undefined
        ? `skipped: ${state.refusedBecause}`
        : (action?.action ?? headerlessNote(core, state, promptTokens)),
    agent: state.kind,
    transcript: state.file,
    handoffAt: state.thresholds?.handoffAt ?? (state.kind === 'ai-zen' ? 100 : null),
    compactsAt: state.thresholds?.compactsAt ?? null,
    compactions: state.compactions ?? 0,
    lastCompactionAt: state.lastCompactionAt ?? null,
    successorCommand: successor,
    usage: [...(core.usage?.readings(state.file) ?? [])],
    ...(previous !== undefined ? { previous } : {}),
    ...idleField(core, state),
  };
}

/** The one order of the states: handed off, else exited, else by its share of the window. */
export function standingOf(facts: {
  readonly handedOff: boolean;
  readonly exited: boolean;
  readonly overflowed: boolean;
  readonly percent: number | null;
}): SessionStanding {
  if (facts.handedOff) return 'handed-off';
  if (facts.exited) return 'exited';
  if (!facts.overflowed) return 'open';
  return facts.percent !== null && facts.percent < 100 ? 'over-threshold' : 'overflowed';
}

/** No process of its agent has it open, and its file has been quiet long enough to believe that. */
async function hasExited(core: DaemonCore, file: string): Promise<boolean> {
  if (core.livenessKnown?.(file) !== true) return false;
  const stats = await fs.stat(file).catch(() => null);
  return stats !== null && Date.now() - stats.mtimeMs >= EXITED_QUIET_MS;
}

/** Where the session's idle handoff stands (only for agents that have one: Claude Code). */
function idleField(core: DaemonCore, state: SessionState): { idle?: IdleInfo } {
  if (state.kind === 'ai-zen' || state.turn === undefined) return {};
  const standing = core.foreign.idleOf(state.file);
  return standing ? { idle: idleInfo(standing) } : {};
}

export function idleInfo(standing: IdleStanding): IdleInfo {
  const { plan } = standing;
  const iso = (ms: number) => new Date(ms).toISOString();
  const cacheUntil = plan.state === 'waiting' && plan.cacheMinutes !== null ? iso(plan.since + plan.cacheMinutes * 60_000) : null;
  if (standing.handedOffAt !== null) {
    const choice = standing.choice;
    return {
      state: 'handed-off',
      why: null,
      at: iso(standing.handedOffAt),
      cacheUntil,
      document: standing.document,
      ...(choice
        ? { onReturn: { freshTokens: choice.freshTokens, resumeTokens: choice.resumeTokens, resumeDollars: choice.resumeDollars } }
        : {}),
    };
  }
  if (plan.state === 'waiting') return { state: 'waiting', why: null, at: iso(plan.at), cacheUntil, document: null };
  return { state: plan.state, why: plan.why, at: null, cacheUntil: null, document: null };
}

/** An ai-zen session file without its header line (shown as ???? before, and never flagged). */
function headerlessNote(core: DaemonCore, state: SessionState, promptTokens: number | null): string | null {
  if (state.kind !== 'ai-zen' || state.details.header != null || (state.messageCount === 0 && promptTokens === null)) return null;
  const window = core.config.maxContextTokens;
  const over =
    promptTokens !== null && promptTokens > window
      ? `; ${formatTokens(promptTokens)} tokens is over the configured window (${formatTokens(window)})`
      : '';
  return `no header line: its window is unknown and the daemon cannot migrate it${over}`;
}

export function handoffInfo(record: HandoffRecord): HandoffInfo {
  const { status } = record;
  return {
    path: record.path,
    sessionId: record.sessionId,
    executor: record.executor,
    mode: record.mode,
    at: record.at,
    state: status.state,
    commit: status.state === 'committed' ? status.commit : null,
    ref: status.state === 'committed' ? (status.ref ?? null) : null,
    reason: status.state === 'deferred' || status.state === 'off' ? status.reason : null,
    attempts: record.attempts,
    ...(record.checks ? { checks: record.checks } : {}),
    agent: record.agent ?? null,
    successorCommand: record.successorCommand ?? null,
    redactions: record.redactions ?? null,
    ...(record.downgrades ? { downgrades: [...record.downgrades] } : {}),
    ...triggerField(record),
    ...(record.forkCost ? { forkCost: { ...record.forkCost } } : {}),
  };
}

/**
 * Another agent's document records its trigger. ai-zen's own `handoff` is always asked for; its
 * `migrate` line does not say whether the window or a person set it off, so none is claimed.
 */
function triggerField(record: HandoffRecord): { trigger?: HandoffInfo['trigger'] } {
  if (record.trigger) return { trigger: record.trigger };
  const own = record.agent == null || record.agent === 'ai-zen';
  return own && record.mode === 'handoff' ? { trigger: 'hand' } : {};
}

function factsInfo(facts: Facts): FactsInfo {
  return { capturedAt: facts.capturedAt, root: facts.root, git: facts.git as FactsInfo['git'], ports: facts.ports as FactsInfo['ports'] };
}
