// The documents of another agent's crossings: written by the daemon through the one handoff pipeline
// (handoff/handoff-pipeline.ts: summary when a model may be used, else or on its failure offline —
// one way, R11), or the agent's own adopted; either way sealed, committed alone as every document,
// and announced with the command that starts the successor fresh. The transcript is only read.
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus, HandoffTrigger } from '../../events.js';
import { readRegularText } from '../../fs/open-regular-file.js';
import { localCommandEnvironment } from '../../handoff/checks/command-environment.js';
import { evidenceFromMessages } from '../../handoff/checks/evidence.js';
import { checkDocument } from '../../handoff/checks/run-checks.js';
import type { DocPath } from '../../handoff/doc-path.js';
import { createOfflineExecutor } from '../../handoff/executors/offline-executor.js';
import { rulesInForce } from '../../handoff/executors/offline-document.js';
import { NO_COST, type Executor } from '../../handoff/executors/types.js';
import { sealOrKeepUncommitted, writeHandoffDocument, type Downgrade } from '../../handoff/handoff-pipeline.js';
import { readPreviousDocument } from '../../handoff/previous-document.js';
import { loadHandoffSkill } from '../../handoff/skill.js';
import { verifyDocument } from '../../handoff/verify-doc.js';
import { homeFolder, type Env, type ProjectPaths } from '../../paths.js';
import type { Facts, FactsProvider } from '../../probe/facts.js';
import { renderFacts } from '../../probe/render-facts.js';
import type { ExecutorName, HandoffChecks, HandoffCost } from '../../session/format.js';
import { usagePercent } from '../../usage-percent.js';
import type { HandoffCommitter } from '../committing/handoff-committer.js';
import type { SessionSource, SessionState } from '../watching/session-source.js';
import { PRE_COMPACT_REASON } from './foreign-crossing.js';
import type { BeganRecord, ForeignRecords, HandoffRecordLine } from './foreign-records.js';
import type { PauseHook } from '../../session/pause-hook.js';
import { estimateTokens } from '../../agent/estimate-tokens.js';
import type { IdleReturn } from './idle-return.js';
import { writeForkDocument, type ForkCost, type ForkSettings } from './fork-document.js';

export interface ForeignHandoffResult {
  readonly path: string;
  readonly successorCommand: string;
  readonly executor: ExecutorName;
  /** The executors that failed before the one that wrote it (R11). */
  readonly downgrades: readonly Downgrade[];
  /** The document's estimated tokens (an idle handoff's: what continuing fresh from it reads). */
  readonly documentTokens?: number;
}

export interface ForeignDocumentsOptions {
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly events: EventBus;
  readonly committer: HandoffCommitter;
  readonly facts: FactsProvider;
  readonly logger: Logger;
  readonly now: () => Date;
  /** The summary executor and its model's window, when a model may be used; null: offline only. */
  readonly summary?: () => Promise<{ readonly executor: Executor; readonly maxContextTokens: number } | null>;
  /** Where what was done is kept for the next start (foreign-records.ts). */
  readonly records: ForeignRecords;
  /** Test-only: pause between the document and its seal, so a test can kill the daemon there. */
  readonly pause?: PauseHook;
}

export interface WriteRequest {
  readonly file: string;
  readonly state: SessionState;
  readonly source: SessionSource;
  readonly reason: string;
  readonly offline: boolean;
  readonly trigger: HandoffTrigger;
  /** An idle handoff's stretch, kept with its record. */
  readonly idleStretch?: string | null;
  /** An idle handoff: what the person who comes back is told, from the document written and its tokens. */
  readonly idleReturn?: (document: string, documentTokens: number) => IdleReturn;
  readonly goal?: string;
  /** The agent's own attempt that failed first (self). */
  readonly after?: Downgrade;
  /** An idle Claude Code session with `idleHandoff.executor: "fork"`: a headless fork of it writes the document first. */
  readonly fork?: ForkSettings;
  /** Said as soon as it is known which executor goes first. */
  readonly began: (executor: 'fork' | 'summary' | 'offline') => void;
}

export function createForeignDocuments(options: ForeignDocumentsOptions) {
  const loadSkill = () => loadHandoffSkill({ projectRoot: options.paths.root, env: options.env });
  /** A line too long to hold is left out of the evidence, and said. */
  const skippedLine = (transcript: string) => (line: { readonly offset: number; readonly bytes: number }) =>
    options.logger.warn(
      { transcript, offset: line.offset, bytes: line.bytes },
      'a transcript line too long to read was left out of the evidence',
    );
  /** The forks' own transcripts: never sessions to watch, hand off or answer hooks for. */
  const forkTranscripts = new Set<string>();
  /** Aborted when the daemon stops: a running fork's process group is killed. */
  const stopping = new AbortController();

  /** The daemon writes the document. Throws with the reason when none could be written. */
  async function write(request: WriteRequest): Promise<ForeignHandoffResult> {
    if (request.fork && request.state.kind === 'claude-code') {
      const forked = await writeByFork(request, request.fork);
      if ('result' in forked) return forked.result;
      // Stopping: the next start hands the session off again from its `began` record.
      if (stopping.signal.aborted) throw new Error(forked.reason);
      options.logger.warn(
        { sessionId: request.state.sessionId, reason: forked.reason },
        'the fork could not write the idle document; writing it offline',
      );
      // One way (R11): the offline document, saying why the fork's was not kept.
      return writeByPipeline({ ...request, offline: true, after: { from: 'fork', reason: forked.reason } });
    }
    return writeByPipeline(request);
  }

  async function writeByFork(
    request: WriteRequest,
    settings: ForkSettings,
  ): Promise<{ result: ForeignHandoffResult } | { reason: string }> {
    const { state, source, file } = request;
    request.began('fork');
    const outcome = await writeForkDocument({
      root: options.root,
      paths: options.paths,
      env: options.env,
      state,
      source,
      file,
      settings,
      facts: options.facts,
      loadSkill,
      now: options.now,
      signal: stopping.signal,
      forkTranscripts,
      began: (document) =>
        options.records.began({
          at: options.now().toISOString(),
          transcript: file,
          sessionId: state.sessionId,
          agent: state.kind,
          executor: 'fork',
          document,
          trigger: request.trigger,
        }),
      started: () => options.events.emit('handoff.started', { sessionId: state.sessionId, mode: 'handoff', executor: 'fork' }),
      review: (doc, facts) => review(file, source, doc, facts),
    });
    if (!outcome.ok) {
      options.events.emit('handoff.downgraded', { sessionId: state.sessionId, from: 'fork', to: 'offline', reason: outcome.reason });
      return { reason: outcome.reason };
    }
    const sealed = await sealOrKeepUncommitted(options.root, outcome.doc, options.logger, state.sessionId);
    const documentTokens = await readRegularText(outcome.doc.absolute).then(estimateTokens, () => null);
    const result = await record(state, source, outcome.doc, 'fork', request.reason, {
      cost: outcome.cost.tokens,
      forkCost: outcome.cost,
      downgrades: [],
      checks: outcome.checks,
      sealed,
      trigger: request.trigger,
      ...(request.idleStretch ? { idleStretch: request.idleStretch } : {}),
      ...(request.idleReturn && documentTokens !== null
        ? { documentTokens, idleReturn: request.idleReturn(outcome.doc.relative, documentTokens) }
        : {}),
    });
    return { result };
  }

  async function writeByPipeline(request: WriteRequest): Promise<ForeignHandoffResult> {
    const { state, source, file } = request;
    const summary = request.offline
      ? null
      : await (options.summary?.() ?? Promise.resolve(null)).catch((error: unknown) => {
          options.logger.warn({ err: error }, 'the summary executor could not be prepared; writing the document offline');
          return null;
        });
    const first = summary ? 'summary' : 'offline';
    request.began(first);
    // Before the name is reserved: a kill from here on leaves a record the next start finishes.
    await options.records.began({
      at: options.now().toISOString(),
      transcript: file,
      sessionId: state.sessionId,
      agent: state.kind,
      executor: first,
      document: null,
      trigger: request.trigger,
    });
    options.events.emit('handoff.started', { sessionId: state.sessionId, mode: 'handoff', executor: first });
    if (request.after)
      options.events.emit('handoff.downgraded', {
        sessionId: state.sessionId,
        from: request.after.from,
        to: first,
        reason: request.after.reason,
      });
    const { messages, earlier } = await source.handoff!.readEvidence(file, { onSkippedLine: skippedLine(file) });
    const previous = await readPreviousDocument(options.root, messages);
    const written = await writeHandoffDocument({
      root: options.root,
      sessionId: state.sessionId,
      now: options.now,
      facts: options.facts,
      loadSkill,
      renderFacts,
      input: {
        sessionFile: file,
        messages,
        maxContextTokens: summary?.maxContextTokens ?? 0,
        ...(request.goal !== undefined ? { goal: request.goal } : {}),
        // F3: the files the session's own tools changed; the rules in force, carried ones too.
        evidence: evidenceFromMessages(messages, options.root, rulesInForce(messages, previous).carried, earlier ?? undefined),
        places: { root: options.root, home: homeFolder() },
        previous,
        earlier,
      },
      executors: summary ? [summary.executor, createOfflineExecutor()] : [createOfflineExecutor()],
      ...(request.after ? { earlier: [request.after] } : {}),
      onDowngrade: (from, to, reason) => {
        options.logger.warn(
          { sessionId: state.sessionId, agent: state.kind, reason },
          'summary handoff failed; writing the document offline',
        );
        options.events.emit('handoff.downgraded', { sessionId: state.sessionId, from, to, reason });
      },
      logger: options.logger,
      ...(options.pause ? { afterDocument: () => options.pause!('after-document') } : {}),
    });
    const documentTokens = request.idleReturn ? await readRegularText(written.doc.absolute).then(estimateTokens, () => null) : null;
    return record(state, source, written.doc, written.executor, request.reason, {
      cost: written.cost,
      downgrades: written.downgrades,
      checks: written.checks,
      sealed: written.sealed,
      trigger: request.trigger,
      ...(request.idleStretch ? { idleStretch: request.idleStretch } : {}),
      ...(request.idleReturn && documentTokens !== null
        ? { documentTokens, idleReturn: request.idleReturn(written.doc.relative, documentTokens) }
        : {}),
    });
  }

  /** The agent's own document, checked already: sealed, committed, announced. Null: it is no longer a document. */
  async function adopt(state: SessionState, source: SessionSource, doc: DocPath, checks: HandoffChecks | null) {
    if (!(await verifyDocument(options.root, doc)).ok) return null;
    const sealed = await sealOrKeepUncommitted(options.root, doc, options.logger, state.sessionId);
    return record(state, source, doc, 'self', 'written by the agent', {
      cost: NO_COST,
      downgrades: [],
      sealed,
      // The agent is asked only at a crossing of its threshold.
      trigger: 'threshold',
      ...(checks ? { checks } : {}),
    });
  }

  /**
   * A document an earlier daemon began and never recorded (killed between writing and sealing it):
   * sealed, recorded and committed now as it would have been. Null: it is no document (too short).
   */
  async function adoptLeftover(began: BeganRecord, source: SessionSource, doc: DocPath): Promise<HandoffRecordLine | null> {
    if (!(await verifyDocument(options.root, doc)).ok) return null;
    const sealed = await sealOrKeepUncommitted(options.root, doc, options.logger, began.sessionId);
    const seen = {
      transcript: began.transcript,
      path: doc.relative,
      sessionId: began.sessionId,
      executor: began.executor,
      mode: 'handoff',
      at: began.at,
      agent: began.agent,
      successorCommand: source.handoff!.successorCommand(doc.relative),
      sha256: sealed?.sha256 ?? null,
      redactions: sealed?.redactions ?? null,
      ...(began.trigger ? { trigger: began.trigger } : {}),
    };
    options.logger.info(
      { sessionId: began.sessionId, agent: began.agent, path: doc.relative },
      'adopted the handoff document an interrupted daemon left; committing it',
    );
    await options.records.handoff(seen);
    const { transcript: _transcript, ...committed } = seen;
    options.committer.add(committed);
    return seen;
  }

  /** The agent's document as it is now: whether it is one, and F1–F4 against the facts it was given (F2). */
  async function review(
    file: string,
    source: SessionSource,
    doc: DocPath,
    facts: Facts,
  ): Promise<{ verified: boolean; checks: HandoffChecks | null }> {
    const verified = (await verifyDocument(options.root, doc)).ok;
    if (!verified) return { verified, checks: null };
    const checks = await checksOf(file, source, doc, facts).catch(() => null);
    return { verified, checks };
  }

  async function checksOf(file: string, source: SessionSource, doc: DocPath, facts: Facts): Promise<HandoffChecks> {
    const [{ messages, earlier }, skill] = await Promise.all([
      source.handoff!.readEvidence(file, { onSkippedLine: skippedLine(file) }),
      loadSkill(),
    ]);
    const previous = await readPreviousDocument(options.root, messages);
    return checkDocument({
      // The agent wrote it: a FIFO put at the path must not hold a thread.
      document: await readRegularText(doc.absolute),
      sections: skill.sections,
      evidence: evidenceFromMessages(messages, options.root, rulesInForce(messages, previous).carried, earlier ?? undefined),
      facts,
      environment: localCommandEnvironment(options.root),
    });
  }

  async function record(
    state: SessionState,
    source: SessionSource,
    doc: DocPath,
    executor: ExecutorName,
    reason: string,
    written: {
      readonly cost: HandoffCost;
      /** The fork's own measured usage and its price (the fork executor only). */
      readonly forkCost?: ForkCost;
      readonly downgrades: readonly Downgrade[];
      readonly checks?: HandoffChecks;
      readonly sealed: { readonly sha256: string; readonly redactions: number } | null;
      readonly trigger: HandoffTrigger;
      readonly idleStretch?: string;
      readonly documentTokens?: number;
      readonly idleReturn?: IdleReturn;
    },
  ): Promise<ForeignHandoffResult> {
    const successorCommand = source.handoff!.successorCommand(doc.relative);
    options.logger.info(
      { sessionId: state.sessionId, agent: state.kind, path: doc.relative, executor, reason, successorCommand },
      'handoff document written for another agent session',
    );
    const seen = {
      path: doc.relative,
      sessionId: state.sessionId,
      executor,
      mode: 'handoff',
      at: options.now().toISOString(),
      agent: state.kind,
      successorCommand,
      sha256: written.sealed?.sha256 ?? null,
      redactions: written.sealed?.redactions ?? null,
      ...(written.downgrades.length > 0 ? { downgrades: written.downgrades.map((entry) => ({ ...entry })) } : {}),
      ...(written.checks ? { checks: written.checks } : {}),
      trigger: written.trigger,
      ...(written.forkCost ? { forkCost: forkCostRecord(written.forkCost) } : {}),
    };
    // Kept first, as ai-zen's own `handoff` line is: the next start gives it to the committer again.
    await options.records.handoff({
      transcript: state.file,
      ...seen,
      ...(written.idleStretch ? { idleStretch: written.idleStretch } : {}),
      ...(written.documentTokens !== undefined ? { documentTokens: written.documentTokens } : {}),
    });
    options.committer.add(seen);
    options.events.emit('handoff.written', {
      sessionId: state.sessionId,
      mode: 'handoff',
      path: doc.relative,
      absolutePath: path.resolve(options.root, doc.relative),
      executor,
      cost: written.cost,
      agent: state.kind,
      successorCommand,
      percent: percentOf(state),
      ...(written.checks ? { checks: written.checks } : {}),
      ...(reason.startsWith(PRE_COMPACT_REASON) ? { beforeCompaction: true } : {}),
      trigger: written.trigger,
      ...(written.forkCost ? { forkCost: forkCostRecord(written.forkCost) } : {}),
      ...(written.idleReturn
        ? {
            idleReturn: {
              freshTokens: written.idleReturn.freshTokens,
              resumeTokens: written.idleReturn.resumeTokens,
              resumeDollars: written.idleReturn.resumeDollars,
            },
          }
        : {}),
    });
    return {
      path: doc.relative,
      successorCommand,
      executor,
      downgrades: written.downgrades,
      ...(written.documentTokens !== undefined ? { documentTokens: written.documentTokens } : {}),
    };
  }

  return {
    write,
    adopt,
    review,
    adoptLeftover,
    /** A transcript a fork of ours writes: not a session of the person's. */
    isFork: (file: string) => forkTranscripts.has(path.resolve(file)),
    /** The daemon stops: a running fork is killed with its process group. */
    close: () => stopping.abort(),
  };
}

function forkCostRecord(cost: ForkCost) {
  return { ...cost.usage, dollars: cost.dollars };
}

export function percentOf(state: SessionState): number {
  const tokens = state.latestUsage?.prompt_tokens ?? 0;
  return state.maxContextTokens ? usagePercent(tokens, state.maxContextTokens) : 0;
}
