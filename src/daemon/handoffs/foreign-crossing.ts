// Another agent's crossing as a state machine: one record per transcript, a discriminated union of
// phases, and a pure `step(record, event, now) → { next, effects }`. The runner (foreign-sessions.ts)
// performs the effects — writes, timers, notices — and turns what they find into the next events,
// so every decision (judge, ask the agent, correct it once, fall back one way) is here and
// table-tested without a child process (test/daemon/foreign-crossing.fast.test.ts).
import type { DocPath } from '../../handoff/doc-path.js';
import type { Downgrade } from '../../handoff/handoff-pipeline.js';
import { allProblems, checksPassed } from '../../handoff/checks/run-checks.js';
import type { Facts } from '../../probe/facts.js';
import type { ExecutorName, HandoffChecks } from '../../session/format.js';
import type { HandoffTrigger } from '../../events.js';
import { shortId } from '../../short-id.js';
import { droppedBelow, judgeCrossing, type GuardMemory } from './handoff-loop-guard.js';
import { retryDelayMs } from './retry-backoff.js';

/** The agent a transcript belongs to, with its own settings (config `agents.<name>`). */
export interface CrossingAgent {
  readonly kind: string;
  /** For people: 'Claude Code'. */
  readonly label: string;
  /** False: the daemon cannot hand this agent's sessions over. */
  readonly handoff: boolean;
  /** Its Stop hook can take the handoff (self); `mustAnswer`: only once one of its hooks reached the daemon. Null: no hooks. */
  readonly selfHooks: { readonly mustAnswer: boolean } | null;
  readonly graceMs: number;
  /** How long the agent has to take the handoff, and then to write (or correct) its document. */
  readonly selfDeadlineMs: number;
  /**
   * Its Stop hook runs before the turn's usage is written (Copilot CLI), so a crossing is often seen
   * after the Stop that ended its turn: the next Stop takes it, waited for as long as a process keeps
   * the session open; a script's run, which has no next Stop, is written for at once.
   */
  readonly stopsBeforeUsage?: boolean;
}

/** A timer the runner arms; its event names the instant it was armed for, so a stale one is ignored. */
export interface Deadline {
  readonly at: number;
  /** Why the daemon writes the document itself when it passes. */
  readonly why: string;
}

export type CrossingPhase =
  /** Not judged in this crossing: below the threshold, or the crossing not read yet. */
  | { readonly name: 'quiet' }
  | { readonly name: 'unsupported' }
  /** The loop guard said not yet; a new reading (or its retry time) judges again. */
  | { readonly name: 'held'; readonly retryAt: number | null }
  /** The loop guard stopped trying for this crossing. */
  | { readonly name: 'stopped' }
  /**
   * Go: whether the agent's hooks are installed is being asked. `late`: the go came when a held
   * crossing's retry time came, so the process that crossed may have ended since (a one-shot run).
   */
  | { readonly name: 'asking-hooks'; readonly late: boolean }
  /** The agent's Stop hook is to take the handoff at the end of its turn (self). */
  | { readonly name: 'awaiting-stop'; readonly deadline: Deadline }
  /** The agent was asked to write `doc`; `corrected`: it was already told once what its document fails. */
  | {
      readonly name: 'awaiting-document';
      readonly doc: DocPath;
      readonly facts: Facts;
      readonly corrected: boolean;
      readonly deadline: Deadline;
    }
  /** The daemon writes the document (summary or offline), or adopts the agent's. */
  | { readonly name: 'writing' }
  | { readonly name: 'documented' }
  /** No document could be written; `retryAt`: written again then, while the session is still over its threshold. */
  | { readonly name: 'failed'; readonly retryAt: number | null };

/** Everything the daemon knows of one transcript's crossings. */
export interface CrossingRecord {
  readonly agent: CrossingAgent;
  readonly phase: CrossingPhase;
  /** What status shows (kept when the session drops below: the last thing done). */
  readonly action: string | null;
  readonly successorCommand: string | null;
  /** The last document written for the session, project-relative (what the agent's screen and its successor are told). */
  readonly document: string | null;
  /** A hook of this session reached the daemon: the agent runs our hooks. */
  readonly hooksAnswered: boolean;
  readonly guard: GuardMemory | null;
  /** When the daemon first saw the transcript (ms): a start stamped later than that is a clock that is wrong. */
  readonly seenAt: number;
  /** Writes of this crossing that failed in a row (a full disk): the next waits as long as ai-zen's own retries. */
  readonly failures: number;
  /** An earlier daemon began this session's document and never finished it: its crossing is no old news. */
  readonly owed: boolean;
  /** The session's last reply (its idle stretch) and when the daemon first saw it: the idle point is never later than that. */
  readonly lastReply: { readonly stretch: string; readonly seenAt: number } | null;
  /** The idle stretch a document was written for (one per stretch), and when (ms). */
  readonly idle: { readonly stretch: string; readonly at: number } | null;
}

/** A reading of a session over its threshold, as the loop guard judges it. */
export interface Reading {
  readonly sessionId: string;
  readonly percent: number;
  readonly handoffAt: number;
  readonly compactsAt: number | null;
  readonly startedAtMs: number | null;
  /** The first reading of a session that was there before the daemon started (it may be old news). */
  readonly firstSeen: boolean;
}

export type CrossingEvent =
  /** Judge this crossing: the monitor saw it cross or the Stop hook waits on it (`crossed`), or a new reading of a held one (`grew`). */
  | { readonly type: 'judge'; readonly trigger: 'crossed' | 'grew'; readonly reading: Reading }
  /** The guard's retry time came; `reading` null: the session is no longer over its threshold. */
  | { readonly type: 'retry-due'; readonly at: number; readonly reading: Reading | null }
  /**
   * `live` false: no process runs the session any more (a one-shot run ended), so no Stop hook will
   * come; `scripted`: a script's run (`-p`) runs it.
   */
  | { readonly type: 'hooks-known'; readonly installed: boolean; readonly live: boolean | null; readonly scripted?: boolean }
  | { readonly type: 'hook-answered' }
  /** The Stop hook blocks the agent, naming this free path and these facts. */
  | { readonly type: 'claimed'; readonly doc: DocPath; readonly facts: Facts }
  /** The agent's document as it is now: the Stop hook ran again (`correct`, then `finish`), PreCompact (`finish`, offline) or the deadline. */
  | {
      readonly type: 'reviewed';
      readonly purpose: 'correct' | 'finish' | 'deadline';
      readonly offline: boolean;
      readonly doc: DocPath;
      readonly verified: boolean;
      /** Null: the checks could not run. */
      readonly checks: HandoffChecks | null;
    }
  /** A script's run (`claude -p`) stopped: asking the agent would make the handoff turn the script's output. */
  | { readonly type: 'script-stopped' }
  | { readonly type: 'deadline'; readonly at: number }
  /** A person (`ai-zen-daemon handoff`) or PreCompact asks for the document now. */
  | {
      readonly type: 'write-requested';
      readonly reason: string;
      readonly offline: boolean;
      readonly byHand: boolean;
      readonly goal?: string;
      readonly after?: Downgrade;
    }
  | { readonly type: 'write-began'; readonly executor: 'fork' | 'summary' | 'offline' }
  /** `counts`: the document is this crossing's (one by hand below the threshold leaves the next crossing its own). */
  | {
      readonly type: 'written';
      readonly path: string;
      readonly executor: ExecutorName;
      readonly successorCommand: string;
      readonly counts: boolean;
      readonly trigger?: HandoffTrigger;
    }
  | { readonly type: 'write-failed'; readonly reason: string }
  /** Below the threshold again (or compacted): the next crossing is a new one. */
  | { readonly type: 'dropped' }
  /** The session's last reply, as read now: a new one starts a new idle stretch. */
  | { readonly type: 'replied'; readonly stretch: string }
  /** The session sat idle past its idle point (idle-handoff.ts planned it) in this stretch. */
  | { readonly type: 'idle'; readonly stretch: string };

export type CrossingEffect =
  | { readonly type: 'ask-hooks' }
  | { readonly type: 'arm'; readonly timer: 'deadline' | 'retry'; readonly at: number }
  /** The daemon writes the document: summary when a model may be used, else (or `offline`) offline. */
  | {
      readonly type: 'write';
      readonly reason: string;
      readonly offline: boolean;
      readonly byHand: boolean;
      readonly trigger: HandoffTrigger;
      readonly goal?: string;
      readonly after?: Downgrade;
    }
  /** Look at the agent's document as it is now (verified? its checks against `facts`), then `reviewed` (deadline). */
  | { readonly type: 'review'; readonly doc: DocPath; readonly facts: Facts }
  /** Take the agent's own document: seal, commit, announce. */
  | { readonly type: 'adopt'; readonly doc: DocPath; readonly checks: HandoffChecks | null }
  /** The Stop hook blocks the agent once more, naming what its document fails. */
  | { readonly type: 'correct'; readonly path: string; readonly problems: readonly string[] }
  /** The agent's own document was not adopted: moved out of handoffs/ (to rejected/), so `git add -A` never takes it. */
  | { readonly type: 'set-aside'; readonly doc: DocPath }
  | { readonly type: 'announce-self' }
  | { readonly type: 'notify'; readonly title: string; readonly body: string }
  | { readonly type: 'log'; readonly message: string; readonly fields: Readonly<Record<string, unknown>> };

export interface Step {
  readonly next: CrossingRecord;
  readonly effects: readonly CrossingEffect[];
}

export const SCRIPT_REASON = 'a script ran the session: the daemon writes the document, the script keeps its answer';
/** Why a document is written in the agent's PreCompact hook: the record of the state before the compaction. */
export const PRE_COMPACT_REASON = 'pre-compact';
const NOT_TAKEN = 'the Stop hook did not take the handoff in time';
const NOT_WRITTEN = 'the agent did not write its document in time';
const NOT_CORRECTED = 'the agent did not correct its document in time';
const late = (why: string): CrossingEffect => ({
  type: 'log',
  message: 'no document from the agent in time; writing it offline',
  fields: { why },
});

export const EXITED_REASON = "the agent's process has ended: no Stop hook will come, the daemon writes the document";
/** Why a document is written while the session sits idle with its prompt cache still warm. */
export const IDLE_REASON = 'idle while the cache is warm';
export const RETRY_REASON = 'tried again after a failed handoff';

export function newCrossing(agent: CrossingAgent, seenAt: number): CrossingRecord {
  return {
    agent,
    phase: { name: 'quiet' },
    action: null,
    successorCommand: null,
    document: null,
    hooksAnswered: false,
    guard: null,
    seenAt,
    failures: 0,
    owed: false,
    lastReply: null,
    idle: null,
  };
}

/** A record a restart rebuilds from what an earlier daemon kept: its document written, this crossing done. */
export function documentedCrossing(
  agent: CrossingAgent,
  seenAt: number,
  written: {
    readonly path: string;
    readonly executor: string;
    readonly successorCommand: string;
    readonly atMs: number | null;
    /** The idle stretch it was written for, when it was an idle handoff. */
    readonly idleStretch?: string | null;
  },
): CrossingRecord {
  const idle = written.idleStretch && written.atMs !== null ? { stretch: written.idleStretch, at: written.atMs } : null;
  return {
    ...newCrossing(agent, seenAt),
    // An idle document leaves the crossing still to come its own, as one by hand does.
    phase: idle ? { name: 'quiet' } : { name: 'documented' },
    action: idle ? idleAction(idle.at, written.path) : `handoff written (${written.executor}): ${written.path}`,
    idle,
    successorCommand: written.successorCommand,
    document: written.path,
    // The loop guard counts it among the session's recent handoffs, as the earlier daemon did.
    guard: written.atMs === null ? null : { baseline: null, handoffs: [written.atMs], stoppedNoticeGiven: false },
  };
}

/** The one transition function: what the record becomes on `event` at `now` (ms), and what to do. */
export function step(record: CrossingRecord, event: CrossingEvent, now: number): Step {
  const phase = record.phase;
  const stay: Step = { next: record, effects: [] };
  const to = (next: CrossingPhase, action: string | null = record.action, effects: CrossingEffect[] = []): Step => ({
    next: { ...record, phase: next, action },
    effects,
  });
  const label = record.agent.label;
  switch (event.type) {
    case 'judge':
      if (event.trigger === 'crossed' ? phase.name !== 'quiet' : phase.name !== 'held') return stay;
      return judge(record, event.reading, now);
    case 'retry-due':
      if (phase.name === 'failed' && phase.retryAt === event.at)
        return event.reading === null ? to({ name: 'failed', retryAt: null }) : write(record, { reason: RETRY_REASON });
      if (phase.name !== 'held' || phase.retryAt !== event.at) return stay;
      if (event.reading === null) return to({ name: 'held', retryAt: null });
      return judge({ ...record, phase: { name: 'held', retryAt: null } }, event.reading, now, true);
    case 'hooks-known':
      if (phase.name !== 'asking-hooks') return stay;
      if (!event.installed) return write(record, { reason: 'threshold' });
      // Asked at the crossing, the agent has just written its transcript: only a late go may find it gone.
      if (event.live === false && phase.late) return write(record, { reason: EXITED_REASON });
      // Its Stop came before the crossing was written: a script's run has no Stop left to take it.
      if (record.agent.stopsBeforeUsage && event.scripted) return write(record, { reason: SCRIPT_REASON });
      return awaitStop(record, now);
    case 'hook-answered':
      return record.hooksAnswered ? stay : { next: { ...record, hooksAnswered: true }, effects: [] };
    case 'claimed': {
      if (phase.name !== 'awaiting-stop') return stay;
      const deadline = { at: now + record.agent.selfDeadlineMs, why: NOT_WRITTEN };
      return to(
        { name: 'awaiting-document', doc: event.doc, facts: event.facts, corrected: false, deadline },
        `waiting for ${label} to write ${event.doc.relative} (self)`,
        [{ type: 'announce-self' }, { type: 'arm', timer: 'deadline', at: deadline.at }],
      );
    }
    case 'reviewed':
      if (phase.name !== 'awaiting-document' || phase.doc.relative !== event.doc.relative) return stay;
      return reviewed(record, phase, event, now);
    case 'script-stopped':
      if (phase.name !== 'awaiting-stop') return stay;
      return write(record, { reason: SCRIPT_REASON });
    case 'deadline':
      if ((phase.name !== 'awaiting-stop' && phase.name !== 'awaiting-document') || phase.deadline.at !== event.at) return stay;
      // The agent may have written its document and not stopped yet: look at it before writing one.
      if (phase.name === 'awaiting-document') return { next: record, effects: [{ type: 'review', doc: phase.doc, facts: phase.facts }] };
      // Its next Stop takes the crossing, however long the person takes to prompt again: asked whether a process still runs it.
      if (record.agent.stopsBeforeUsage) return to({ name: 'asking-hooks', late: true }, record.action, [{ type: 'ask-hooks' }]);
      return fallBack(record, phase.deadline.why, phase.deadline.why, false, [late(phase.deadline.why)]);
    case 'write-requested':
      if (phase.name === 'writing' || (phase.name === 'documented' && !event.byHand)) return stay;
      return write(record, {
        reason: event.reason,
        offline: event.offline,
        byHand: event.byHand,
        trigger: event.byHand ? 'hand' : event.reason.startsWith(PRE_COMPACT_REASON) ? 'precompact' : 'threshold',
        ...(event.goal !== undefined ? { goal: event.goal } : {}),
        ...(event.after ? { after: event.after } : {}),
      });
    case 'write-began':
      return { next: { ...record, action: `writing the handoff document (${event.executor})` }, effects: [] };
    case 'written':
      return {
        next: {
          ...record,
          phase: event.counts ? { name: 'documented' } : phase.name === 'writing' ? { name: 'quiet' } : phase,
          action: event.trigger === 'idle' ? idleAction(now, event.path) : `handoff written (${event.executor}): ${event.path}`,
          ...(event.trigger === 'idle' && record.idle ? { idle: { ...record.idle, at: now } } : {}),
          successorCommand: event.successorCommand,
          document: event.path,
          failures: 0,
          owed: false,
        },
        effects: [],
      };
    case 'write-failed': {
      // As ai-zen's own failed migrations: tried again, later each time, while the session stays over its threshold.
      const failures = record.failures + 1;
      const retryAt = now + retryDelayMs(failures);
      return {
        next: {
          ...record,
          phase: { name: 'failed', retryAt },
          failures,
          action: `failed: ${event.reason}; tried again in ${Math.round((retryAt - now) / 1000)} s`,
        },
        effects: [{ type: 'arm', timer: 'retry', at: retryAt }],
      };
    }
    case 'dropped':
      return { next: { ...record, phase: { name: 'quiet' }, guard: droppedBelow(record.guard), failures: 0, owed: false }, effects: [] };
    case 'replied':
      if (record.lastReply?.stretch === event.stretch) return stay;
      return { next: { ...record, lastReply: { stretch: event.stretch, seenAt: now } }, effects: [] };
    case 'idle':
      return idle(record, event.stretch, now);
  }
}

/**
 * One document per idle stretch, and only while nothing else is under way for the session: a
 * crossing asking the agent, writing, or waiting to try again keeps its own course. A session whose
 * crossing was documented, left alone since, is handed off again: the person kept working in it.
 */
function idle(record: CrossingRecord, stretch: string, now: number): Step {
  const settled = ['quiet', 'held', 'stopped', 'documented'].includes(record.phase.name);
  if (!record.agent.handoff || !settled || record.idle?.stretch === stretch) return { next: record, effects: [] };
  const marked = { ...record, idle: { stretch, at: now } };
  return write(marked, { reason: IDLE_REASON, offline: true, trigger: 'idle' });
}

/** `handed off while idle 14:02: .ai-zen/handoffs/….md` (local time). */
function idleAction(at: number, path: string): string {
  return `handed off while idle ${clockTime(at)}: ${path}`;
}

export function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

function judge(record: CrossingRecord, reading: Reading, now: number, late = false): Step {
  const { agent } = record;
  if (!agent.handoff)
    return {
      next: { ...record, phase: { name: 'unsupported' }, action: `the daemon cannot hand off ${agent.kind} sessions` },
      effects: [],
    };
  const { verdict, memory } = judgeCrossing(record.guard, {
    file: '',
    ...reading,
    // A start stamped after the daemon first saw the transcript (clock skew) counts from that sight.
    startedAtMs: reading.startedAtMs === null ? null : Math.min(reading.startedAtMs, record.seenAt),
    firstSeen: reading.firstSeen && !record.owed,
    nowMs: now,
    graceMs: agent.graceMs,
  });
  const judged = { ...record, guard: memory };
  if (verdict.go) {
    if (agent.selfHooks !== null && (!agent.selfHooks.mustAnswer || record.hooksAnswered))
      return { next: { ...judged, phase: { name: 'asking-hooks', late } }, effects: [{ type: 'ask-hooks' }] };
    return write(judged, { reason: 'threshold' });
  }
  const effects: CrossingEffect[] = [
    {
      type: 'log',
      message: 'no handoff for this crossing yet',
      fields: { sessionId: reading.sessionId, agent: agent.kind, percent: reading.percent, reason: verdict.reason },
    },
  ];
  if (verdict.stoppedTrying)
    effects.push({
      type: 'notify',
      title: `ai-zen: ${agent.label} handoffs stopped`,
      body: `session ${shortId(reading.sessionId)}: ${verdict.reason}`,
    });
  if (verdict.final) return { next: { ...judged, phase: { name: 'stopped' }, action: verdict.reason }, effects };
  const pending = record.phase.name === 'held' ? record.phase.retryAt : null;
  let retryAt = pending;
  if (verdict.retryAtMs !== undefined && pending === null) {
    // A little after the grace window ends, so the guard sees it over.
    retryAt = Math.max(now, verdict.retryAtMs) + 50;
    effects.push({ type: 'arm', timer: 'retry', at: retryAt });
  }
  return { next: { ...judged, phase: { name: 'held', retryAt }, action: verdict.reason }, effects };
}

function awaitStop(record: CrossingRecord, now: number): Step {
  const deadline = { at: now + record.agent.selfDeadlineMs, why: NOT_TAKEN };
  return {
    next: {
      ...record,
      phase: { name: 'awaiting-stop', deadline },
      action: record.agent.stopsBeforeUsage
        ? `waiting for the end of ${record.agent.label}'s next turn, to write the document itself (self)`
        : `waiting for ${record.agent.label} to stop and write the document itself (self)`,
    },
    effects: [{ type: 'arm', timer: 'deadline', at: deadline.at }],
  };
}

function write(
  record: CrossingRecord,
  how: {
    readonly reason: string;
    readonly offline?: boolean;
    readonly byHand?: boolean;
    readonly trigger?: HandoffTrigger;
    readonly goal?: string;
    readonly after?: Downgrade;
  },
): Step {
  return {
    next: { ...record, phase: { name: 'writing' } },
    effects: [{ type: 'write', offline: false, byHand: false, trigger: 'threshold', ...how }],
  };
}

/** Asked once, and no document that passes: the daemon writes its own, one way down from self (R11). */
function fallBack(record: CrossingRecord, reason: string, why: string, offline: boolean, effects: CrossingEffect[] = []): Step {
  const writing = write(record, { reason, offline, after: { from: 'self', reason: why } });
  return { next: writing.next, effects: [...effects, ...writing.effects] };
}

function reviewed(
  record: CrossingRecord,
  phase: Extract<CrossingPhase, { name: 'awaiting-document' }>,
  event: Extract<CrossingEvent, { type: 'reviewed' }>,
  now: number,
): Step {
  const fails = event.verified && event.checks !== null && !checksPassed(event.checks);
  if (event.purpose === 'correct') {
    // A document that fails the checks is sent back once, naming what is wrong.
    if (!fails || phase.corrected || event.checks === null) return { next: record, effects: [] };
    const deadline = { at: now + record.agent.selfDeadlineMs, why: NOT_CORRECTED };
    return {
      next: {
        ...record,
        phase: { ...phase, corrected: true, deadline },
        action: `asked ${record.agent.label} to correct ${phase.doc.relative} (self)`,
      },
      effects: [
        { type: 'arm', timer: 'deadline', at: deadline.at },
        { type: 'correct', path: phase.doc.relative, problems: allProblems(event.checks) },
      ],
    };
  }
  if (event.verified && !fails)
    return { next: { ...record, phase: { name: 'writing' } }, effects: [{ type: 'adopt', doc: phase.doc, checks: event.checks }] };
  const refused: CrossingEffect[] = [
    ...(fails
      ? [
          {
            type: 'log',
            message: "the agent's own document fails the checks; not adopted",
            fields: { problems: allProblems(event.checks!) },
          } as const,
        ]
      : []),
    { type: 'set-aside', doc: phase.doc },
  ];
  if (event.purpose === 'deadline')
    return fallBack(record, phase.deadline.why, phase.deadline.why, false, [...refused, late(phase.deadline.why)]);
  const why = phase.corrected
    ? "the agent's document still failed the checks after one correction"
    : 'the agent stopped without writing a document that verifies';
  return fallBack(record, 'self fell back', why, event.offline, refused);
}
