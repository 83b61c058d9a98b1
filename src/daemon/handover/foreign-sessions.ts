// Another agent's session crossed its handoffAt (X3, issue 10 §4): unless a loop guard says no,
// write a handoff document for it from its transcript (which is only ever read) and the captured
// facts — by the summary executor when a model may be used (its history serialised to fit, checked
// F1–F4 against the transcript's evidence), else or on its failure offline (one way, R11) — commit
// it alone as every document, and announce it with the command that starts the successor fresh. A document the agent writes itself (the `self` path through its
// Stop hook) is announced the same way through `adopt`.
import { readRegularText } from '../../fs/open-regular-file.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus } from '../../events.js';
import { localCommandEnvironment } from '../../handoff/checks/command-environment.js';
import { evidenceFromMessages } from '../../handoff/checks/evidence.js';
import { commandProblems } from '../../handoff/checks/first-steps-check.js';
import { allProblems, checkDocument, checksPassed } from '../../handoff/checks/run-checks.js';
import { buildOfflineDocument, rulesInForce } from '../../handoff/executors/offline-document.js';
import { readPreviousDocument } from '../../handoff/previous-document.js';
import { NO_COST, type Executor } from '../../handoff/executors/types.js';
import { handoffDocName, reserveHandoffDoc, type DocPath } from '../../handoff/doc-path.js';
import { loadHandoffSkill } from '../../handoff/skill.js';
import { redactMessages } from '../../handoff/redact-messages.js';
import { sealDocument } from '../../handoff/seal-document.js';
import { verifyDocument } from '../../handoff/verify-doc.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { homeFolder, type Env, type ProjectPaths } from '../../paths.js';
import type { AgentMessage } from '../../session/session-recorder.js';
import type { Facts, FactsProvider } from '../../probe/facts.js';
import type { ExecutorName, HandoffChecks, HandoffCost } from '../../session/format.js';
import { renderFacts } from '../../probe/render-facts.js';
import type { HandoffCommitter } from '../committing/handoff-committer.js';
import { HandoffLoopGuard } from './handoff-loop-guard.js';
import type { ForeignSessions } from './session-monitor.js';
import { findSource, isOverThreshold, type SessionSource, type SessionState } from '../watching/session-source.js';
import { shortId } from '../../short-id.js';
import { usagePercent } from '../../usage-percent.js';

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
  readonly graceMs?: number;
  /** An agent's own grace window, when its config sets one (over graceMs). */
  readonly graceMsFor?: (agent: string) => number | undefined;
  /** How long a crossing waits for the agent's own Stop hook to take it (self), and then for its document, before the offline fallback. */
  readonly selfDeadlineMs?: number;
  readonly now?: () => Date;
}

export interface ForeignHandoffResult {
  readonly path: string;
  readonly successorCommand: string;
  readonly executor: ExecutorName;
  /** The executors that failed before the one that wrote it (R11). */
  readonly downgrades: readonly Downgrade[];
}

interface Entry {
  action: string | null;
  successorCommand: string | null;
  running: Promise<ForeignHandoffResult | null> | null;
  retry: NodeJS.Timeout | null;
  /** The judgement of the current crossing (once per crossing, whoever asks first: the watcher or the Stop hook). */
  evaluation: Promise<void> | null;
  /** The guard said go and the agent's hooks are installed: its Stop hook takes the handoff (self). */
  awaitingSelf: boolean;
  /** The document the agent was asked to write. */
  selfDoc: DocPath | null;
  /** The facts the agent was given for it: its document is checked against these (F2), whatever HEAD did since. */
  selfFacts: Facts | null;
  /** The offline fallback when the agent does not take it or does not write it in time. */
  fallback: NodeJS.Timeout | null;
  /** The loop guard held this crossing back: a new reading has it judged again. */
  heldBack: boolean;
  /** The agent was told once what its document fails (issue 21 §3); next time the daemon writes its own. */
  corrected: boolean;
}

export interface HandOverOptions {
  readonly offline?: boolean;
  readonly after?: Downgrade;
  /** S1: the next goal the document is written towards (already normalised). */
  readonly goal?: string;
  /**
   * A person asked for it (`ai-zen-daemon handoff <id>`, issue 19 §4): a document is written even
   * when this crossing has one, and one written below the threshold leaves the next crossing its own.
   */
  readonly byHand?: boolean;
}

export interface ForeignSessionsRunner extends ForeignSessions {
  /**
   * Write the document now for this transcript (summary when a model may be used, else offline),
   * unless one was written for this crossing. `offline`: no model call (PreCompact, within the
   * hook's time limit); `after`: the executor that failed first (the Stop hook's self path, R11).
   */
  handOver(file: string, reason: string, how?: HandOverOptions): Promise<ForeignHandoffResult | null>;
  /** A document for this crossing already exists (written by the agent itself, or by us). */
  hasDocument(file: string): boolean;
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
   * Issue 19 §7: a script's run (`claude -p`, `codex exec`) stops while its crossing waits for the
   * agent's own document. Asking the agent would make the handoff turn's reply the script's output;
   * the daemon writes the document itself instead (summary or offline). False: nothing was waiting.
   */
  handOverForScript(file: string): Promise<boolean>;
  /**
   * The agent stopped after writing its document, and the document fails F1–F4: what is wrong, to
   * tell it once (issue 21 §3). Null: nothing to correct (passes, not written, or told already).
   */
  correctSelf(file: string): Promise<{ readonly path: string; readonly problems: readonly string[] } | null>;
  /** A hook of this transcript's session reached the daemon: the agent runs our hooks for it. */
  hookAnswered(file: string): void;
  close(): void;
}

export function createForeignSessions(options: ForeignSessionsOptions): ForeignSessionsRunner {
  const guard = new HandoffLoopGuard(options.graceMs);
  const entries = new Map<string, Entry>();
  /** Transcripts with a document for their current crossing. */
  const documented = new Set<string>();
  /** Transcripts whose session's hooks have reached the daemon. */
  const answered = new Set<string>();
  const now = options.now ?? (() => new Date());
  let closed = false;

  const entryOf = (file: string): Entry => {
    let entry = entries.get(file);
    if (!entry)
      entries.set(
        file,
        (entry = {
          action: null,
          successorCommand: null,
          running: null,
          retry: null,
          evaluation: null,
          awaitingSelf: false,
          selfDoc: null,
          selfFacts: null,
          fallback: null,
          heldBack: false,
          corrected: false,
        }),
      );
    return entry;
  };

  const selfDeadlineMs = options.selfDeadlineMs ?? 180_000;
  const graceOf = (agent: string): { graceMs?: number } => {
    const graceMs = options.graceMsFor?.(agent);
    return graceMs === undefined ? {} : { graceMs };
  };

  function fallbackAfter(file: string, entry: Entry, why: string): void {
    if (entry.fallback) clearTimeout(entry.fallback);
    entry.fallback = setTimeout(() => {
      entry.fallback = null;
      if (documented.has(file)) return;
      void (async () => {
        if (entry.selfDoc && (await adoptSelf(file, entry))) return;
        options.logger.info({ file, why }, 'no document from the agent in time; writing it offline');
        entry.awaitingSelf = false;
        entry.selfDoc = null;
        await handOver(file, why, { after: { from: 'self', reason: why } });
      })().catch(() => {});
    }, selfDeadlineMs);
    entry.fallback.unref?.();
  }

  async function adoptSelf(file: string, entry: Entry): Promise<boolean> {
    const state = options.stateOf(file);
    const source = findSource(options.sources, file);
    if (!state || !source?.handover || !entry.selfDoc) return false;
    if (documented.has(file)) return true;
    // Issue 21 §3: the agent's own document is checked as every other; one that fails is not adopted.
    const checks = await checksOf(file, source, entry.selfDoc, undefined, entry.selfFacts ?? undefined).catch(() => null);
    if (checks && !checksPassed(checks)) {
      options.logger.info({ file, problems: allProblems(checks) }, "the agent's own document fails the checks; not adopted");
      return false;
    }
    const result = await announce(file, state, source, entry.selfDoc, 'self', 'written by the agent', {
      cost: NO_COST,
      downgrades: [],
      ...(checks ? { checks } : {}),
    });
    if (result) {
      entry.awaitingSelf = false;
      entry.selfDoc = null;
      if (entry.fallback) clearTimeout(entry.fallback);
      entry.fallback = null;
    }
    return result !== null;
  }

  function evaluateOnce(state: SessionState, firstSeen: boolean): Promise<void> {
    const entry = entryOf(state.file);
    entry.evaluation ??= evaluate(state, firstSeen).catch((error: unknown) =>
      options.logger.warn({ err: error, file: state.file }, 'could not judge the crossing of another agent session'),
    );
    return entry.evaluation;
  }

  async function evaluate(state: SessionState, firstSeen: boolean): Promise<void> {
    if (closed) return;
    const entry = entryOf(state.file);
    const source = findSource(options.sources, state.file);
    if (!source?.handover) {
      entry.action = `the daemon cannot hand over ${state.kind} sessions`;
      return;
    }
    if (documented.has(state.file)) return;
    const percent = percentOf(state);
    const startedAtMs = state.startedAt ? Date.parse(state.startedAt) : NaN;
    const verdict = guard.check({
      file: state.file,
      percent,
      handoffAt: state.thresholds?.handoffAt ?? 100,
      compactsAt: state.thresholds?.compactsAt ?? null,
      startedAtMs: Number.isFinite(startedAtMs) ? startedAtMs : null,
      firstSeen,
      nowMs: now().getTime(),
      ...graceOf(state.kind),
    });
    entry.heldBack = !verdict.go && !verdict.final;
    if (!verdict.go) {
      entry.action = verdict.reason;
      options.logger.info(
        { sessionId: state.sessionId, agent: state.kind, percent, reason: verdict.reason },
        'no handoff for this crossing yet',
      );
      if (verdict.stoppedTrying)
        options.notice(`ai-zen: ${labelOf(source)} handoffs stopped`, `session ${shortId(state.sessionId)}: ${verdict.reason}`);
      if (verdict.retryAtMs !== undefined && !entry.retry) {
        entry.retry = setTimeout(
          () => {
            entry.retry = null;
            const current = options.stateOf(state.file);
            if (current && isOverThreshold(current)) void evaluate(current, false);
          },
          Math.max(0, verdict.retryAtMs - now().getTime()) + 50,
        );
        entry.retry.unref?.();
      }
      return;
    }
    const selfHooks =
      source.handover.selfHooksInstalled !== undefined &&
      (!source.handover.selfHooksMustAnswer || answered.has(state.file)) &&
      (await source.handover.selfHooksInstalled().catch(() => false));
    if (selfHooks) {
      // The agent writes its own document when its Stop hook next runs (the end of this turn).
      entry.awaitingSelf = true;
      entry.action = `waiting for ${labelOf(source)} to stop and write the document itself (self)`;
      fallbackAfter(state.file, entry, 'the Stop hook did not take the handoff in time');
      return;
    }
    void handOver(state.file, 'threshold').catch(() => {});
  }

  async function handOver(file: string, reason: string, how: HandOverOptions = {}): Promise<ForeignHandoffResult | null> {
    const entry = entryOf(file);
    if (entry.running) return entry.running;
    if (documented.has(file) && !how.byHand) return null;
    if (entry.fallback) clearTimeout(entry.fallback);
    entry.fallback = null;
    entry.awaitingSelf = false;
    entry.running = (async () => {
      const state = options.stateOf(file);
      const source = findSource(options.sources, file);
      if (!state || !source?.handover) return null;
      const summary = how.offline
        ? null
        : await (options.summary?.() ?? Promise.resolve(null)).catch((error: unknown) => {
            options.logger.warn({ err: error }, 'the summary executor could not be prepared; writing the document offline');
            return null;
          });
      entry.action = `writing the handoff document (${summary ? 'summary' : 'offline'})`;
      try {
        const doc = await reserveHandoffDoc({ root: options.root, sessionId: state.sessionId, now });
        options.events.emit('handoff.started', { sessionId: state.sessionId, mode: 'handoff', executor: summary ? 'summary' : 'offline' });
        const [messages, facts, skill] = await Promise.all([
          source.handover.readEvidence(file),
          options.facts.capture(),
          loadHandoffSkill({ projectRoot: options.paths.root, env: options.env }),
        ]);
        const factsBlock = renderFacts(facts);
        const previous = await readPreviousDocument(options.root, messages);
        const earlier = how.after ? [how.after] : [];
        if (how.after)
          options.events.emit('handoff.downgraded', {
            sessionId: state.sessionId,
            from: how.after.from,
            to: summary ? 'summary' : 'offline',
            reason: how.after.reason,
          });
        let written: Written = { executor: 'offline', cost: NO_COST, downgrades: earlier };
        if (summary) {
          const input = {
            root: options.root,
            doc,
            skill,
            facts,
            factsBlock,
            sessionId: state.sessionId,
            sessionFile: file,
            messages,
            maxContextTokens: summary.maxContextTokens,
            logger: options.logger,
            ...(how.goal !== undefined ? { goal: how.goal } : {}),
            // F3: the files the foreign session's own tools changed; the rules in force, carried ones too.
            evidence: evidenceFromMessages(messages, options.root, rulesInForce(messages, previous).carried),
          };
          const outcome = await summary.executor.run(input);
          if (outcome.ok) written = { executor: 'summary', cost: outcome.cost, downgrades: earlier };
          else {
            // R11: one way down, said in the log, the event and the handoff's record.
            options.logger.warn(
              { sessionId: state.sessionId, agent: state.kind, reason: outcome.reason },
              'summary handoff failed; writing the document offline',
            );
            options.events.emit('handoff.downgraded', {
              sessionId: state.sessionId,
              from: 'summary',
              to: 'offline',
              reason: outcome.reason,
            });
            written = { executor: 'offline', cost: outcome.cost, downgrades: [...earlier, { from: 'summary', reason: outcome.reason }] };
          }
        }
        if (written.executor === 'offline') {
          const document = buildOfflineDocument({
            sections: skill.sections,
            // Issue 22 §2: scanned before any folding; a scanner that cannot run leaves it to the seal,
            // which then keeps the document from any commit.
            messages: await redactMessages(messages).catch(() => messages),
            facts,
            factsBlock,
            sessionId: state.sessionId,
            sessionFile: file,
            ...(how.goal !== undefined ? { goal: how.goal } : {}),
            places: { root: options.root, home: homeFolder() },
            previous,
            isRunnable: (command) => commandRunnable(command),
          });
          await writeFileInside(options.root, doc.relative, document);
        }
        // Issue 21 §3: every document is checked, whoever wrote it; the verdict goes with it (`handoffs`, `status`, the notification).
        // Checked against the facts captured for this document (F2), not the facts by then: another
        // session's handoff committed meanwhile moves HEAD, and this document is not wrong for that.
        const checks = await checksOf(file, source, doc, messages, facts).catch(() => null);
        const result = await announce(
          file,
          state,
          source,
          doc,
          written.executor,
          reason,
          { ...written, ...(checks ? { checks } : {}) },
          how.byHand === true,
        );
        if (!result) throw new Error('the document did not verify');
        return result;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        entry.action = `failed: ${message}`;
        options.logger.warn(
          { sessionId: state.sessionId, agent: state.kind, reason: message },
          'could not write the handoff document of another agent session',
        );
        options.events.emit('handoff.failed', { sessionId: state.sessionId, mode: 'handoff', reason: message });
        return null;
      }
    })().finally(() => (entry.running = null));
    return entry.running;
  }

  async function announce(
    file: string,
    state: SessionState,
    source: SessionSource,
    doc: DocPath,
    executor: ExecutorName,
    reason: string,
    written: Pick<Written, 'cost' | 'downgrades' | 'checks'> = { cost: NO_COST, downgrades: [] },
    byHand = false,
  ): Promise<ForeignHandoffResult | null> {
    const check = await verifyDocument(options.root, doc);
    if (!check.ok) return null;
    // T1 T5: scanned, redacted and sealed like every ai-zen document; the committer needs the seal.
    const sealed = await sealDocument(options.root, doc).catch((error: unknown) => {
      options.logger.warn(
        { sessionId: state.sessionId, path: doc.relative, err: error },
        'the handoff document could not be scanned for secrets; it will not be committed',
      );
      return null;
    });
    const entry = entryOf(file);
    const successorCommand = source.handover!.successorCommand(doc.relative);
    // By hand below the threshold: the crossing still to come gets its own document.
    if (!byHand || isOverThreshold(state)) documented.add(file);
    entry.successorCommand = successorCommand;
    entry.action = `handoff written (${executor}): ${doc.relative}`;
    const at = now().toISOString();
    options.logger.info(
      { sessionId: state.sessionId, agent: state.kind, path: doc.relative, executor, reason, successorCommand },
      'handoff document written for another agent session',
    );
    options.committer.add({
      path: doc.relative,
      sessionId: state.sessionId,
      executor,
      mode: 'handoff',
      at,
      agent: state.kind,
      successorCommand,
      sha256: sealed?.sha256 ?? null,
      redactions: sealed?.redactions ?? null,
      ...(written.downgrades.length > 0 ? { downgrades: written.downgrades } : {}),
      ...(written.checks ? { checks: written.checks } : {}),
    });
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
    });
    return { path: doc.relative, successorCommand, executor, downgrades: written.downgrades };
  }

  /** F4 by construction for the offline document: only first steps that pass the check it gets. */
  function commandRunnable(command: string): boolean {
    return commandProblems(command, localCommandEnvironment(options.root)).length === 0;
  }

  /** F1–F4 of a document against the transcript's evidence (files, rules, carried rules) and the facts it was written from (else the facts now). */
  async function checksOf(
    file: string,
    source: SessionSource,
    doc: DocPath,
    read?: readonly AgentMessage[],
    captured?: Facts,
  ): Promise<HandoffChecks> {
    const [messages, facts, skill] = await Promise.all([
      read ?? source.handover!.readEvidence(file),
      captured ?? options.facts.capture(),
      loadHandoffSkill({ projectRoot: options.paths.root, env: options.env }),
    ]);
    const previous = await readPreviousDocument(options.root, messages);
    return checkDocument({
      document: await readRegularText(doc.absolute),
      sections: skill.sections,
      evidence: evidenceFromMessages(messages, options.root, rulesInForce(messages, previous).carried),
      facts,
      environment: localCommandEnvironment(options.root),
    });
  }

  return {
    crossed(state, info) {
      if (entries.get(state.file)?.evaluation) return;
      // Only a session read at start-up (it was there before the daemon) may be old news; one born
      // since is handled as it comes, whatever its first reading (issue 19 §2).
      void evaluateOnce(state, info.initial);
    },
    grew(state) {
      const entry = entries.get(state.file);
      if (!entry?.heldBack || entry.running || documented.has(state.file) || closed) return;
      entry.heldBack = false;
      entry.evaluation = evaluate(state, false).catch((error: unknown) =>
        options.logger.warn({ err: error, file: state.file }, 'could not judge the crossing of another agent session'),
      );
    },
    reset(state) {
      // Below the threshold again (or compacted): the next crossing gets its own document.
      documented.delete(state.file);
      guard.dropped(state.file);
      const entry = entries.get(state.file);
      if (entry?.retry) clearTimeout(entry.retry);
      if (entry?.fallback) clearTimeout(entry.fallback);
      if (entry)
        Object.assign(entry, {
          retry: null,
          fallback: null,
          evaluation: null,
          awaitingSelf: false,
          selfDoc: null,
          selfFacts: null,
          heldBack: false,
          corrected: false,
        });
    },
    actionFor: (file) => entries.get(file)?.action ?? null,
    successorCommandFor: (file) => entries.get(file)?.successorCommand ?? null,
    handOver,
    hasDocument: (file) => documented.has(file),
    async settle(file) {
      const state = options.stateOf(file);
      if (!state || !isOverThreshold(state)) return;
      // The Stop hook of a session the watcher read at start-up comes after that read: its crossing is judged there.
      await evaluateOnce(state, false);
    },
    async claimForSelf(file) {
      const entry = entries.get(file);
      const state = options.stateOf(file);
      const source = findSource(options.sources, file);
      if (!entry?.awaitingSelf || entry.selfDoc || !state || !source?.handover || documented.has(file)) return null;
      // Named, not created: Claude's Write tool refuses to overwrite a file it has not read.
      const [doc, facts] = await Promise.all([freeDocPath(options.root, state.sessionId, now()), options.facts.capture()]);
      entry.selfDoc = doc;
      entry.selfFacts = facts;
      entry.action = `waiting for ${labelOf(source)} to write ${doc.relative} (self)`;
      options.events.emit('handoff.started', { sessionId: state.sessionId, mode: 'handoff', executor: 'self' });
      fallbackAfter(file, entry, 'the agent did not write its document in time');
      return { doc, successorCommand: source.handover.successorCommand(doc.relative), state, facts };
    },
    async finishSelf(file, how = {}) {
      const entry = entries.get(file);
      if (!entry?.selfDoc || documented.has(file)) return false;
      if (await adoptSelf(file, entry)) return true;
      const why = entry.corrected
        ? "the agent's document still failed the checks after one correction"
        : 'the agent stopped without writing a document that verifies';
      // Asked once, and it stopped without a document that verifies: offline now (one way, R11).
      if (entry.fallback) clearTimeout(entry.fallback);
      entry.fallback = null;
      entry.awaitingSelf = false;
      entry.selfDoc = null;
      await handOver(file, 'self fell back', {
        after: { from: 'self', reason: why },
        ...(how.offline ? { offline: true } : {}),
      });
      return true;
    },
    async handOverForScript(file) {
      const entry = entries.get(file);
      if (!entry?.awaitingSelf || entry.selfDoc || documented.has(file)) return false;
      await handOver(file, 'a script ran the session: the daemon writes the document, the script keeps its answer');
      return true;
    },
    async correctSelf(file) {
      const entry = entries.get(file);
      const source = findSource(options.sources, file);
      if (!entry?.selfDoc || entry.corrected || documented.has(file) || !source?.handover) return null;
      if (!(await verifyDocument(options.root, entry.selfDoc)).ok) return null;
      const checks = await checksOf(file, source, entry.selfDoc, undefined, entry.selfFacts ?? undefined).catch(() => null);
      if (!checks || checksPassed(checks)) return null;
      entry.corrected = true;
      entry.action = `asked ${labelOf(source)} to correct ${entry.selfDoc.relative} (self)`;
      fallbackAfter(file, entry, 'the agent did not correct its document in time');
      return { path: entry.selfDoc.relative, problems: allProblems(checks) };
    },
    hookAnswered(file) {
      answered.add(file);
    },
    close() {
      closed = true;
      for (const entry of entries.values()) {
        if (entry.retry) clearTimeout(entry.retry);
        if (entry.fallback) clearTimeout(entry.fallback);
      }
    },
  };
}

/** How a document came to be: its executor, what the model calls cost, and the executors that failed first (R11). */
interface Written {
  readonly executor: ExecutorName;
  readonly cost: HandoffCost;
  readonly downgrades: readonly Downgrade[];
  /** F1–F4: what the document fails (empty lists: passed); absent: it could not be checked. */
  readonly checks?: HandoffChecks;
}

/** An executor that failed before the one that wrote the document, and why (R11). */
export interface Downgrade {
  readonly from: ExecutorName;
  readonly reason: string;
}

/** A document path nothing is at yet (the agent creates the file). */
async function freeDocPath(root: string, sessionId: string, date: Date): Promise<DocPath> {
  const folder = path
    .relative(root, path.join(root, '.ai-zen', 'handoffs'))
    .split(path.sep)
    .join('/');
  for (let attempt = 1; attempt < 100; attempt += 1) {
    const relative = `${folder}/${handoffDocName(date, sessionId, attempt)}`;
    const absolute = path.join(root, relative);
    try {
      await fs.lstat(absolute);
    } catch {
      return { relative, absolute };
    }
  }
  throw new Error('no free handoff document name');
}

function percentOf(state: SessionState): number {
  const tokens = state.latestUsage?.prompt_tokens ?? 0;
  return state.maxContextTokens ? usagePercent(tokens, state.maxContextTokens) : 0;
}

function labelOf(source: SessionSource): string {
  return source.label ?? source.kind;
}
