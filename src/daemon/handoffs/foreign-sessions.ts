// Another agent's session crossed its handoffAt (X3): the runner of its crossing's state machine
// (foreign-crossing.ts). It holds one record per transcript — the only state — feeds it the events
// the monitor, the agent's hooks, a person and the timers bring, and performs the effects `step`
// returns: ask whether the hooks are installed, arm a timer, write or adopt the document
// (foreign-documents.ts), tell the Stop hook what to correct, notify, log.
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus } from '../../events.js';
import { promises as fs } from 'node:fs';
import type { DocPath } from '../../handoff/doc-path.js';
import { freeDocPath } from './free-doc-path.js';
import type { Executor } from '../../handoff/executors/types.js';
import type { Env, ProjectPaths } from '../../paths.js';
import type { Facts, FactsProvider } from '../../probe/facts.js';
import type { HandoffCommitter } from '../committing/handoff-committer.js';
import { findSource, isOverThreshold, type SessionSource, type SessionState } from '../watching/session-source.js';
import {
  documentedCrossing,
  newCrossing,
  step,
  type CrossingAgent,
  type CrossingEffect,
  type CrossingEvent,
  type CrossingRecord,
  type Reading,
} from './foreign-crossing.js';
import { createForeignDocuments, percentOf, type ForeignHandoffResult } from './foreign-documents.js';
import type { ForeignRecords, HandoffRecordLine } from './foreign-records.js';
import { leftoverDocuments } from './leftover-documents.js';
import { removeAllHandoffBriefs, removeHandoffBrief } from './handoff-brief.js';
import type { PauseHook } from '../../session/pause-hook.js';
import { GRACE_MS } from './handoff-loop-guard.js';
import { claudeCacheMinutesFromEnv, idleStretchOf, planIdle, type IdlePlan } from './idle-handoff.js';
import type { IdleHandoffConfig } from '../../config/agents-config.js';
import { isWatchedAgent } from '../../config/agent-names.js';
import type { ModelFacts } from '../../config/agent-models.js';
import { idleReturnOf, type IdleReturn } from './idle-return.js';
import type { ForkSettings } from './fork-document.js';
import type { ForeignSessions } from './session-monitor.js';

export type { ForeignHandoffResult } from './foreign-documents.js';
import type { Downgrade } from '../../handoff/handoff-pipeline.js';
export type { Downgrade };

/** An agent's own settings for its crossings (config `agents.<name>.graceSeconds`, `selfDeadlineSeconds`). */
export interface AgentTerms {
  readonly graceMs: number;
  readonly selfDeadlineMs: number;
  /** `agents.<name>.idleHandoff`; null or absent: never handed off while idle. */
  readonly idle?: IdleHandoffConfig | null;
  /** `agents.<name>.models`: the user's corrections of the window and price tables. */
  readonly models?: Readonly<Record<string, ModelFacts>>;
  /** `agents.<name>.command`: the agent's command the daemon runs (Claude Code's fork); null or absent: the one on PATH. */
  readonly command?: string | null;
}

/** Where a session's idle handoff stands, for status, `top` and the statusline. */
export interface IdleStanding {
  readonly plan: IdlePlan;
  /** The stretch's document was written at this time (ms): "handed off while idle HH:MM". */
  readonly handedOffAt: number | null;
  readonly document: string | null;
  /** Handed off: what the person who comes back is told (idle-return.ts). */
  readonly choice: IdleReturn | null;
}

export const DEFAULT_SELF_DEADLINE_MS = 180_000;

export interface ForeignSessionsOptions {
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly events: EventBus;
  readonly committer: HandoffCommitter;
  readonly facts: FactsProvider;
  readonly sources: readonly SessionSource[];
  readonly logger: Logger;
  /**
   * The summary executor and its model's window, when a model is configured and may be used (T3/T4
   * already applied by the config); null or absent: offline only. Asked per handoff, so an idle
   * daemon never loads the model client.
   */
  readonly summary?: () => Promise<{ readonly executor: Executor; readonly maxContextTokens: number } | null>;
  /** The current state of a watched transcript. */
  readonly stateOf: (file: string) => SessionState | null;
  /** A loop guard noticed something the user should hear about (it stopped trying). */
  readonly notice: (title: string, body: string) => void;
  /** Each agent's own grace window and self deadline; absent or undefined: the defaults. */
  readonly termsFor?: (agent: string) => AgentTerms | undefined;
  readonly now?: () => Date;
  /** Where the deadline and retry timers are set (default: the process's, unref'd so they never hold it open). */
  readonly timers?: Timers;
  /** What was done, kept for the next start (foreign-records.ts). */
  readonly records: ForeignRecords;
  /** Test-only: pause between a document and its seal, so a test can kill the daemon there. */
  readonly pause?: PauseHook;
}

export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const processTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface HandOverOptions {
  readonly offline?: boolean;
  readonly after?: Downgrade;
  /** S1: the next goal the document is written towards (already normalised). */
  readonly goal?: string;
  /**
   * A person asked for it (`ai-zen-daemon handoff <id>`): a document is written even when this
   * crossing has one, and one written below the threshold leaves the next crossing its own.
   */
  readonly byHand?: boolean;
}

export interface ForeignSessionsRunner extends ForeignSessions {
  /**
   * At start, before the transcripts are read: what an earlier daemon did, from its records — each
   * sealed document to the committer again, each session it handed off known as handed off, and a
   * handoff it began and never finished adopted (its document sealed and committed) or owed.
   */
  restore(): Promise<void>;
  /**
   * Write the document now for this transcript (summary when a model may be used, else offline),
   * unless one was written for this crossing. `offline`: no model call (PreCompact, within the
   * hook's time limit); `after`: the executor that failed first (R11).
   */
  handOver(file: string, reason: string, how?: HandOverOptions): Promise<ForeignHandoffResult | null>;
  /** A transcript a headless fork of ours writes (the idle handoff's fork executor): ignored, its hooks answered with nothing. */
  isFork(file: string): boolean;
  /** A document for this crossing already exists (written by the agent itself, or by us). */
  hasDocument(file: string): boolean;
  /** The last document written for this transcript's session, project-relative; null: none yet. */
  documentOf(file: string): string | null;
  /** The transcript whose session a document was written for (null: not one this daemon wrote or adopted). */
  transcriptOf(document: string): string | null;
  /** The crossing of this transcript is judged (the Stop hook waits for it after reading the transcript up to date). */
  settle(file: string): Promise<void>;
  /** The agent's Stop hook may take this crossing: returns the document path it is to write, or null. */
  claimForSelf(file: string): Promise<{ doc: DocPath; successorCommand: string; state: SessionState; facts: Facts } | null>;
  /**
   * The agent was asked and stops again (or is about to compact): adopt its document, or fall back
   * now (`offline`: no model call, within a hook's time limit). False: no document was asked for.
   */
  finishSelf(file: string, how?: { readonly offline?: boolean }): Promise<boolean>;
  /**
   * A script's run (`claude -p`, `codex exec`) stops while its crossing waits for the agent's own
   * document. Asking the agent would make the handoff turn's reply the script's output; the daemon
   * writes the document itself instead (summary or offline). False: nothing was waiting.
   */
  handOverForScript(file: string): Promise<boolean>;
  /**
   * The agent stopped after writing its document, and the document fails F1–F4: what is wrong, to
   * tell it once. Null: nothing to correct (passes, not written, or told already).
   */
  correctSelf(file: string): Promise<{ readonly path: string; readonly problems: readonly string[] } | null>;
  /** A hook of this transcript's session reached the daemon: the agent runs our hooks for it. */
  hookAnswered(file: string): void;
  /** Where the session's idle handoff stands; null: not a session this runner knows. */
  idleOf(file: string): IdleStanding | null;
  /**
   * The person is back (a prompt arrived in the session): the choice its idle document leaves them,
   * once per idle stretch; null when the stretch was not handed off or they were told already.
   */
  takeIdleReturn(file: string): IdleReturn | null;
  /** A crossing is being handed off, waits on the agent, or has a retry armed: the daemon must not exit idle. */
  busy(): boolean;
  close(): void;
}

export function createForeignSessions(options: ForeignSessionsOptions): ForeignSessionsRunner {
  const now = options.now ?? (() => new Date());
  const documents = createForeignDocuments({ ...options, now });
  /** The one state: each transcript's crossing record. */
  const records = new Map<string, CrossingRecord>();
  /** Sessions whose first line was written since are news, even when the start-up listing reads them first. */
  const runnerStartedAt = now().getTime();
  /** Work in flight, by transcript: what a second caller waits on (not state: each clears itself). */
  const writes = new Map<string, Promise<ForeignHandoffResult | null>>();
  const askingHooks = new Map<string, Promise<void>>();
  const clock = options.timers ?? processTimers;
  /** The armed timers by name and transcript; a stale one fires into `step`, which ignores it. */
  const timers = new Map<string, unknown>();
  /** Each idle document's estimated tokens, by its path: what continuing fresh from it starts with. */
  const documentTokens = new Map<string, number>();
  /** The idle stretch whose choice each session's person was shown: once per stretch. */
  const toldReturn = new Map<string, string>();
  let closed = false;

  const agentOf = (file: string): CrossingAgent => {
    const source = findSource(options.sources, file);
    const kind = source?.kind ?? 'unknown';
    const terms = options.termsFor?.(kind);
    return {
      kind,
      label: source?.label ?? kind,
      handoff: source?.handoff !== undefined,
      selfHooks: source?.handoff?.selfHooksInstalled ? { mustAnswer: source.handoff.selfHooksMustAnswer === true } : null,
      graceMs: terms?.graceMs ?? GRACE_MS,
      selfDeadlineMs: terms?.selfDeadlineMs ?? DEFAULT_SELF_DEADLINE_MS,
      ...(source?.handoff?.stopsBeforeUsage ? { stopsBeforeUsage: true } : {}),
    };
  };
  const recordOf = (file: string): CrossingRecord => {
    const known = records.get(file);
    if (known) return known;
    const record = newCrossing(agentOf(file), now().getTime());
    records.set(file, record);
    return record;
  };

  function dropBrief(file: string): void {
    const sessionId = options.stateOf(file)?.sessionId;
    if (sessionId === undefined) return;
    void removeHandoffBrief(options.paths, sessionId).catch((error: unknown) =>
      options.logger.warn({ err: error, sessionId }, 'could not remove the handoff brief'),
    );
  }

  /** Feed one event; the effects run now, and `done` settles (never rejects) when the slow ones did. */
  function dispatch(file: string, event: CrossingEvent): { effects: readonly CrossingEffect[]; done: Promise<void> } {
    const before = recordOf(file);
    const { next, effects } = step(before, event, now().getTime());
    records.set(file, next);
    // The agent's own document is adopted, refused or given up: its brief has done its work.
    if (before.phase.name === 'awaiting-document' && next.phase.name !== 'awaiting-document') dropBrief(file);
    const done = Promise.all(effects.map((effect) => perform(file, effect))).then(
      () => {},
      (error: unknown) => options.logger.warn({ err: error, file }, 'could not judge the crossing of another agent session'),
    );
    return { effects, done };
  }

  async function perform(file: string, effect: CrossingEffect): Promise<void> {
    switch (effect.type) {
      case 'log':
        options.logger.info({ file, ...effect.fields }, effect.message);
        return;
      case 'notify':
        options.notice(effect.title, effect.body);
        return;
      case 'arm':
        arm(file, effect.timer, effect.at);
        return;
      case 'announce-self': {
        const state = options.stateOf(file);
        if (state) options.events.emit('handoff.started', { sessionId: state.sessionId, mode: 'handoff', executor: 'self' });
        return;
      }
      case 'correct':
        return; // the Stop hook's answer (correctSelf reads it from the effects)
      case 'set-aside':
        await setAside(options.root, effect.doc).catch((error: unknown) =>
          options.logger.warn({ err: error, path: effect.doc.relative }, 'could not move the refused document out of handoffs/'),
        );
        return;
      case 'ask-hooks': {
        const asking = (async () => {
          const source = findSource(options.sources, file);
          const [installed, live] = await Promise.all([
            (source?.handoff?.selfHooksInstalled?.() ?? Promise.resolve(false)).catch(() => false),
            // A one-shot run that ended in its grace window: no process is left to stop and be asked.
            (source?.isLive?.(file) ?? Promise.resolve(null)).catch(() => null),
          ]);
          await dispatch(file, { type: 'hooks-known', installed, live, scripted: options.stateOf(file)?.scripted === true }).done;
        })();
        askingHooks.set(file, asking);
        await asking.finally(() => askingHooks.delete(file));
        return;
      }
      case 'review': {
        const source = findSource(options.sources, file);
        if (!source?.handoff) return;
        const review = await documents.review(file, source, effect.doc, effect.facts);
        await dispatch(file, { type: 'reviewed', purpose: 'deadline', offline: false, doc: effect.doc, ...review }).done;
        return;
      }
      // Not awaited: the Stop hook that judged a crossing must not wait for a summary; those who
      // want the document (handOver, finishSelf) wait on `writes`.
      case 'adopt':
        void track(file, adopt(file, effect.doc, effect.checks));
        return;
      case 'write':
        void track(file, write(file, effect));
        return;
    }
  }

  /** One write per transcript at a time: a second asker gets the same result. */
  function track(file: string, work: Promise<ForeignHandoffResult | null>): Promise<ForeignHandoffResult | null> {
    const running: Promise<ForeignHandoffResult | null> = work
      .catch(() => null)
      .finally(() => {
        if (writes.get(file) === running) writes.delete(file);
      });
    writes.set(file, running);
    return running;
  }

  async function write(file: string, effect: Extract<CrossingEffect, { type: 'write' }>): Promise<ForeignHandoffResult | null> {
    const state = options.stateOf(file);
    const source = findSource(options.sources, file);
    if (!state || !source?.handoff) {
      dispatch(file, { type: 'write-failed', reason: 'the session is no longer watched' });
      return null;
    }
    try {
      const result = await documents.write({
        file,
        state,
        source,
        reason: effect.reason,
        offline: effect.offline,
        trigger: effect.trigger,
        ...(effect.trigger === 'idle'
          ? {
              ...forkOf(state.kind),
              idleStretch: records.get(file)?.idle?.stretch ?? null,
              idleReturn: (document: string, tokens: number) => choiceOf(file, state, document, tokens),
            }
          : {}),
        ...(effect.goal !== undefined ? { goal: effect.goal } : {}),
        ...(effect.after ? { after: effect.after } : {}),
        began: (executor) => dispatch(file, { type: 'write-began', executor }),
      });
      if (result.documentTokens !== undefined) documentTokens.set(result.path, result.documentTokens);
      // By hand or idle below the threshold: the crossing still to come gets its own document.
      const aside = effect.byHand || effect.trigger === 'idle';
      dispatch(file, { type: 'written', ...result, counts: !aside || isOverThreshold(state), trigger: effect.trigger });
      return result;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.logger.warn(
        { sessionId: state.sessionId, agent: state.kind, reason },
        'could not write the handoff document of another agent session',
      );
      options.events.emit('handoff.failed', { sessionId: state.sessionId, mode: 'handoff', reason });
      dispatch(file, { type: 'write-failed', reason });
      return null;
    }
  }

  async function adopt(file: string, doc: DocPath, checks: Parameters<typeof documents.adopt>[3]): Promise<ForeignHandoffResult | null> {
    const state = options.stateOf(file);
    const source = findSource(options.sources, file);
    const result = state && source?.handoff ? await documents.adopt(state, source, doc, checks).catch(() => null) : null;
    if (result) dispatch(file, { type: 'written', ...result, counts: true });
    else dispatch(file, { type: 'write-failed', reason: 'the document did not verify' });
    return result;
  }

  function arm(file: string, timer: 'deadline' | 'retry' | 'idle', at: number): void {
    const key = `${timer}\u0000${file}`;
    if (timers.has(key)) clock.clear(timers.get(key));
    const handle = clock.set(
      () => {
        timers.delete(key);
        if (closed) return;
        if (timer === 'idle') idleDue(file);
        else if (timer === 'deadline') void dispatch(file, { type: 'deadline', at }).done;
        else {
          const current = options.stateOf(file);
          const reading = current && isOverThreshold(current) ? readingOf(current, false) : null;
          void dispatch(file, { type: 'retry-due', at, reading }).done;
        }
      },
      Math.max(0, at - now().getTime()),
    );
    timers.set(key, handle);
  }

  /** Judge the crossing if it was not judged yet, and wait for the answer (the hooks asked, if it asks them). */
  async function judgeOnce(state: SessionState, firstSeen: boolean): Promise<void> {
    if (closed) return;
    await dispatch(state.file, { type: 'judge', trigger: 'crossed', reading: readingOf(state, firstSeen) }).done;
    await askingHooks.get(state.file);
  }

  const phaseOf = (file: string) => records.get(file)?.phase.name ?? 'quiet';

  const environmentCacheMinutes = claudeCacheMinutesFromEnv(options.env);
  function idlePlanOf(file: string, state: SessionState): IdlePlan {
    const record = recordOf(file);
    const stretch = idleStretchOf(state);
    return planIdle({
      state,
      settings: options.termsFor?.(record.agent.kind)?.idle ?? null,
      label: record.agent.label,
      environmentCacheMinutes,
      replySeenAt: record.lastReply !== null && record.lastReply.stretch === stretch ? record.lastReply.seenAt : null,
    });
  }

  /** `idleHandoff.executor: "fork"`: the fork's settings for this agent's idle document (Claude Code only). */
  function forkOf(agent: string): { fork: ForkSettings } | Record<string, never> {
    const terms = options.termsFor?.(agent);
    if (agent !== 'claude-code' || terms?.idle?.executor !== 'fork') return {};
    return {
      fork: {
        timeoutMs: terms.idle.forkTimeoutSeconds * 1000,
        models: terms.models ?? {},
        ...(terms.command ? { command: terms.command } : {}),
      },
    };
  }

  /** Where the session's idle handoff stands, and what its person is told on return once it was handed off. */
  function idleOf(file: string): IdleStanding | null {
    const state = options.stateOf(file);
    const record = records.get(file);
    if (!state || !record) return null;
    const plan = idlePlanOf(file, state);
    const stretch = idleStretchOf(state);
    const done = record.idle !== null && record.idle.stretch === stretch && record.phase.name !== 'writing' && record.document !== null;
    if (!done) return { plan, handedOffAt: null, document: null, choice: null };
    const document = record.document!;
    return {
      plan,
      handedOffAt: record.idle!.at,
      document,
      choice: choiceOf(file, state, document, documentTokens.get(document) ?? null),
    };
  }

  /** What the person who comes back is told of this session's idle document, at the prices in force now. */
  function choiceOf(file: string, state: SessionState, document: string, tokens: number | null): IdleReturn {
    const agent = recordOf(file).agent.kind;
    return idleReturnOf({
      agent: isWatchedAgent(agent) ? agent : null,
      state,
      document,
      documentTokens: tokens,
      cacheMinutes: state.turn?.cacheMinutes ?? environmentCacheMinutes ?? options.termsFor?.(agent)?.idle?.cacheMinutes ?? null,
      models: options.termsFor?.(agent)?.models ?? {},
    });
  }

  /** A new reading of the session: its idle point planned again, the timer armed for it (or cleared). */
  function planIdleFor(state: SessionState): void {
    const stretch = idleStretchOf(state);
    if (stretch !== null) dispatch(state.file, { type: 'replied', stretch });
    const plan = idlePlanOf(state.file, state);
    const key = `idle\u0000${state.file}`;
    if (plan.state === 'waiting' && records.get(state.file)?.idle?.stretch !== plan.stretch) arm(state.file, 'idle', plan.at);
    else if (timers.has(key)) {
      clock.clear(timers.get(key));
      timers.delete(key);
    }
  }

  /** The idle point passed: handed off if the session is still idle in the same stretch. */
  function idleDue(file: string): void {
    const state = options.stateOf(file);
    if (!state) return;
    const plan = idlePlanOf(file, state);
    if (plan.state !== 'waiting') return;
    if (plan.at > now().getTime()) {
      arm(file, 'idle', plan.at);
      return;
    }
    options.logger.info(
      { sessionId: state.sessionId, agent: state.kind, idleSince: new Date(plan.since).toISOString() },
      'the session sat idle with its cache warm; handing it off',
    );
    void dispatch(file, { type: 'idle', stretch: plan.stretch }).done;
  }

  async function restore(): Promise<void> {
    // Briefs an earlier daemon wrote: no claim of this one is waiting on them.
    await removeAllHandoffBriefs(options.paths).catch(() => {});
    const found = await options.records.read();
    const latest = new Map<string, (typeof found.handoffs)[number]>();
    for (const handoff of found.handoffs) {
      const { transcript: _transcript, idleStretch: _idleStretch, documentTokens: tokens, ...seen } = handoff;
      if (tokens !== undefined) documentTokens.set(handoff.path, tokens);
      options.committer.add(seen, { announce: false });
      const before = latest.get(handoff.transcript);
      if (!before || before.at <= handoff.at) latest.set(handoff.transcript, handoff);
    }
    for (const told of found.told) toldReturn.set(told.transcript, told.stretch);
    const seenAt = now().getTime();
    for (const [transcript, handoff] of latest) {
      const atMs = Date.parse(handoff.at);
      records.set(
        transcript,
        documentedCrossing(agentOf(transcript), seenAt, {
          ...handoff,
          atMs: Number.isFinite(atMs) ? atMs : null,
          idleStretch: handoff.trigger === 'idle' ? (handoff.idleStretch ?? null) : null,
        }),
      );
    }
    const known = new Set(found.handoffs.map((handoff) => handoff.path));
    for (const began of found.unfinished) {
      const source = findSource(options.sources, began.transcript);
      if (!source?.handoff) continue;
      const leftovers = await leftoverDocuments({ root: options.root, paths: options.paths, env: options.env, began, known });
      let adopted: HandoffRecordLine | null = null;
      for (const doc of leftovers) {
        const taken: HandoffRecordLine | null =
          adopted === null ? await documents.adoptLeftover(began, source, doc).catch(() => null) : null;
        if (taken) adopted = taken;
        // Too short to be a document (cut short): removed, and the session is handed off again.
        else await fs.rm(doc.absolute, { force: true }).catch(() => {});
      }
      const atMs = Date.parse(began.at);
      records.set(
        began.transcript,
        adopted
          ? documentedCrossing(agentOf(began.transcript), seenAt, { ...adopted, atMs: Number.isFinite(atMs) ? atMs : null })
          : { ...newCrossing(agentOf(began.transcript), seenAt), owed: true },
      );
      options.logger.info(
        { sessionId: began.sessionId, agent: began.agent, adopted: adopted?.path ?? null },
        adopted
          ? 'an interrupted handoff left its document: adopted'
          : 'an interrupted handoff left no document: the session is handed off again',
      );
    }
  }

  return {
    restore,
    busy() {
      if (writes.size > 0 || askingHooks.size > 0) return true;
      for (const record of records.values()) if (isUnderWay(record.phase)) return true;
      return false;
    },
    isFork: (file) => documents.isFork(file),
    seen(state) {
      // A fork of ours writing an idle document: not a session of the person's.
      if (documents.isFork(state.file)) return;
      recordOf(state.file);
      if (!closed) planIdleFor(state);
    },
    crossed(state, info) {
      if (documents.isFork(state.file)) return;
      // Only a session read at start-up (it was there before the daemon) may be old news; one born
      // since is handled as it comes, whatever its first reading — also when the start-up listing,
      // which runs after the daemon answers, is what reads it first.
      const startedAtMs = readingOf(state, false).startedAtMs;
      void judgeOnce(state, info.initial && !(startedAtMs !== null && startedAtMs >= runnerStartedAt));
    },
    grew(state) {
      if (closed || documents.isFork(state.file)) return;
      void dispatch(state.file, { type: 'judge', trigger: 'grew', reading: readingOf(state, false) }).done;
    },
    reset(state) {
      dispatch(state.file, { type: 'dropped' });
    },
    actionFor: (file) => records.get(file)?.action ?? null,
    successorCommandFor: (file) => records.get(file)?.successorCommand ?? null,
    async handOver(file, reason, how = {}) {
      const running = writes.get(file);
      if (running) return running;
      const { effects } = dispatch(file, {
        type: 'write-requested',
        reason,
        offline: how.offline === true,
        byHand: how.byHand === true,
        ...(how.goal !== undefined ? { goal: how.goal } : {}),
        ...(how.after ? { after: how.after } : {}),
      });
      if (!effects.some((effect) => effect.type === 'write')) return null;
      return writes.get(file) ?? null;
    },
    hasDocument: (file) => phaseOf(file) === 'documented',
    documentOf: (file) => records.get(file)?.document ?? null,
    transcriptOf: (document) => [...records].find(([, record]) => record.document === document)?.[0] ?? null,
    async settle(file) {
      const state = options.stateOf(file);
      if (!state || !isOverThreshold(state)) return;
      // The Stop hook of a session the watcher read at start-up comes after that read: its crossing is judged there.
      await judgeOnce(state, false);
    },
    async claimForSelf(file) {
      const state = options.stateOf(file);
      const source = findSource(options.sources, file);
      if (phaseOf(file) !== 'awaiting-stop' || !state || !source?.handoff) return null;
      // Named, not created: Claude's Write tool refuses to overwrite a file it has not read.
      const [doc, facts] = await Promise.all([freeDocPath(options.root, state.sessionId, now()), options.facts.capture()]);
      dispatch(file, { type: 'claimed', doc, facts });
      const phase = records.get(file)?.phase;
      if (phase?.name !== 'awaiting-document' || phase.doc !== doc) return null;
      // Kept before the agent is told: a restart while it writes adopts what it wrote.
      await options.records.began({
        at: now().toISOString(),
        transcript: file,
        sessionId: state.sessionId,
        agent: state.kind,
        executor: 'self',
        document: doc.relative,
      });
      return { doc, successorCommand: source.handoff.successorCommand(doc.relative), state, facts };
    },
    async finishSelf(file, how = {}) {
      const reviewed = await reviewNow(file, 'finish', how.offline === true);
      if (!reviewed) return false;
      await reviewed.done;
      await writes.get(file);
      return true;
    },
    async handOverForScript(file) {
      if (phaseOf(file) !== 'awaiting-stop') return false;
      const { effects } = dispatch(file, { type: 'script-stopped' });
      if (effects.length === 0) return false;
      await writes.get(file);
      return true;
    },
    async correctSelf(file) {
      const phase = records.get(file)?.phase;
      if (phase?.name !== 'awaiting-document' || phase.corrected) return null;
      const reviewed = await reviewNow(file, 'correct', false);
      const correction = reviewed?.effects.find((effect) => effect.type === 'correct');
      return correction ? { path: correction.path, problems: correction.problems } : null;
    },
    hookAnswered(file) {
      dispatch(file, { type: 'hook-answered' });
    },
    idleOf,
    takeIdleReturn(file) {
      const standing = idleOf(file);
      const stretch = records.get(file)?.idle?.stretch;
      if (!standing?.choice || stretch === undefined || toldReturn.get(file) === stretch) return null;
      toldReturn.set(file, stretch);
      // Kept, so a restart before the stretch ends does not tell the person twice.
      void options.records.told({ at: now().toISOString(), transcript: file, stretch });
      return standing.choice;
    },
    close() {
      closed = true;
      documents.close();
      for (const handle of timers.values()) clock.clear(handle);
      timers.clear();
    },
  };

  /** Look at the document the agent was asked for, and feed what was found. Null: no document was asked for. */
  async function reviewNow(file: string, purpose: 'correct' | 'finish', offline: boolean) {
    const phase = records.get(file)?.phase;
    const source = findSource(options.sources, file);
    if (phase?.name !== 'awaiting-document' || !source?.handoff) return null;
    const review = await documents.review(file, source, phase.doc, phase.facts);
    return dispatch(file, { type: 'reviewed', purpose, offline, doc: phase.doc, ...review });
  }
}

function readingOf(state: SessionState, firstSeen: boolean): Reading {
  const startedAtMs = state.startedAt ? Date.parse(state.startedAt) : Number.NaN;
  return {
    sessionId: state.sessionId,
    percent: percentOf(state),
    handoffAt: state.thresholds?.handoffAt ?? 100,
    compactsAt: state.thresholds?.compactsAt ?? null,
    startedAtMs: Number.isFinite(startedAtMs) ? startedAtMs : null,
    firstSeen,
  };
}

/** A refused document of the agent's, if it wrote one, moved to `.ai-zen/rejected/` (kept for a person, out of git). */
async function setAside(root: string, doc: DocPath): Promise<void> {
  const stat = await fs.lstat(doc.absolute).catch(() => null);
  if (!stat?.isFile()) return;
  const folder = path.join(root, '.ai-zen', 'rejected');
  await fs.mkdir(folder, { recursive: true });
  await fs.rename(doc.absolute, path.join(folder, path.basename(doc.absolute)));
}

/** A phase that still has something to do without a new reading: the agent's turn, a write, a retry. */
function isUnderWay(phase: CrossingRecord['phase']): boolean {
  switch (phase.name) {
    case 'quiet':
    case 'unsupported':
    case 'stopped':
    case 'documented':
      return false;
    case 'held':
    case 'failed':
      return phase.retryAt !== null;
    default:
      return true;
  }
}
