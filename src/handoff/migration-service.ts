// The migration service: ai-zen's own handoffs and migrations, in the CLI and the daemon (R21–R30),
// over the steps every handoff shares (handoff-pipeline.ts). It owns the `busy` flag (ContextGuard relaxes to ×2 on it, R14;
// AutoMigrate stands aside on it, R15) and the migration state, and publishes each step on the
// typed event catalogue (src/events.ts).
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { AgentMessage } from '../session/session-recorder.js';
import { AiZenError } from '../errors.js';
import type { EventBus } from '../events.js';
import { silentLogger } from '../log/logger.js';
import type { Env } from '../paths.js';
import type { Facts, FactsProvider } from '../probe/facts.js';
import { renderFacts as defaultRenderFacts } from '../probe/render-facts.js';
import type { ChatMessage, ExecutorName, HandoffChecks, HandoffCost, HandoffLine, Usage } from '../session/format.js';
import type { DocPath } from './doc-path.js';
import { createOfflineExecutor } from './executors/offline-executor.js';
import { createSelfExecutor, type SelfExecutorAgent } from './executors/self-executor.js';
import { createSummaryExecutor } from './executors/summary-executor.js';
import { NO_COST, type Executor } from './executors/types.js';
import { writeHandoffDocument, type Downgrade } from './handoff-pipeline.js';
import { loadHandoffSkill, type SkillSource } from './skill.js';
import { normaliseGoal } from './goal.js';
import { verifyDocument } from './verify-doc.js';
import type { SecretScanner } from './secret-scan.js';
import { pauseHookFromEnv, type PauseHook } from '../session/pause-hook.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export type HandoffMode = 'handoff' | 'migrate';

/** The one-way order of downgrades (R11): never upward. */
export const EXECUTOR_ORDER: readonly ExecutorName[] = ['self', 'summary', 'offline'];

/** The part of the agent the service drives (the runtime's Agent has all of it). */
export interface MigrationAgent extends SelfExecutorAgent {
  readonly messages: readonly AgentMessage[];
  lastUsage: Usage | null;
  readonly maxContextTokens: number;
  readonly busy: boolean;
  /** Aborts the in-flight request (R22). */
  abort(): void;
  /** After prune (R24). */
  replaceHistory(messages: AgentMessage[]): void;
}

/** The part of the conversation context the service needs (the session helper's ConversationContext). */
export interface MigrationContext {
  readonly currentId: string;
  readonly sessionFile: string;
  appendLine(line: HandoffLine): Promise<void>;
  /** A migrate handoff line the session ends with whose new session was never made (absent: none known). */
  readonly unfinishedMigration?: HandoffLine | null;
  flush(): Promise<void>;
  migrate(options: {
    definitionMessages: ChatMessage[];
    breakpoint: ChatMessage;
    docPath: string;
  }): Promise<{ oldId: string; newId: string }>;
}

export interface MigrationServiceOptions {
  /** The project root, real path. */
  readonly root: string;
  readonly agent: MigrationAgent;
  readonly context: MigrationContext;
  /** Names of the agent's tools (the self executor needs `write`, R11). */
  readonly toolNames: readonly string[];
  /** null when no model is configured: every handoff is offline (X1). */
  readonly model: { readonly client: OpenAI; readonly model: string } | null;
  readonly defaultExecutor?: ExecutorName;
  readonly facts: FactsProvider;
  readonly renderFacts?: (facts: Facts) => string;
  readonly events?: EventBus;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /** For the skill's home (AI_ZEN_HOME). */
  readonly env?: Env;
  readonly bundledSkillPath?: string;
  /** How long to wait for an aborted turn to let go of the agent (R22). Default 10 s. */
  readonly abortWaitMs?: number;
  /** T5: finds secrets in the document before it is sealed (default: secretlint's recommended rules and ours). */
  readonly secretScanner?: SecretScanner;
  /** Test-only: pause at a stage so a test can kill the process there (default: from AI_ZEN_TEST_PAUSE_AT in `env`). */
  readonly pause?: PauseHook;
}

/** S2: what the person decided after reviewing a migration's document. */
export type ReviewVerdict = 'continue' | 'cancel';

export interface HandoffRequest {
  readonly mode: HandoffMode;
  /** Default: the configured default executor. */
  readonly executor?: ExecutorName;
  readonly signal?: AbortSignal;
  /** S1: the next goal the document is written towards (the person's words). */
  readonly goal?: string;
  /**
   * S2: a migration pauses between "written" and "prune" for this (a person in a terminal may
   * edit the document or cancel). The edited document is verified again before anything is pruned;
   * 'cancel' leaves the session untouched and the document in place. Absent: no pause (R20).
   */
  readonly review?: (doc: { readonly path: string; readonly absolutePath: string }) => Promise<ReviewVerdict>;
}

export interface HandoffOutcome {
  readonly mode: HandoffMode;
  /** Project-relative path of the document (what the breakpoint holds). */
  readonly path: string;
  readonly absolutePath: string;
  /** The executor that wrote it. */
  readonly executor: ExecutorName;
  readonly downgrades: readonly { readonly from: ExecutorName; readonly reason: string }[];
  /** What the whole handoff cost, failed attempts included (R28–R30). */
  readonly cost: HandoffCost;
  readonly skill: SkillSource;
  /** The session the handoff was made in. */
  readonly sessionId: string;
  /** Set by a migration: the new session's id (R25). */
  readonly newSessionId: string | null;
  /** S1: the goal it was written towards, if any. */
  readonly goal?: string;
  /** F1–F4: what the final document still fails (every list empty: checked ✓). */
  readonly checks: HandoffChecks;
  /** S2: the person cancelled the migration at review; the document stays, the session goes on. */
  readonly cancelled?: boolean;
  /** An unfinished migration's document was reused; nothing new was written. */
  readonly reused?: boolean;
}

export type MigrationState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'handing-off'; readonly mode: HandoffMode; readonly sessionId: string; readonly executor: ExecutorName }
  | { readonly phase: 'written'; readonly mode: HandoffMode; readonly sessionId: string; readonly path: string }
  | { readonly phase: 'migrated'; readonly oldId: string; readonly newId: string; readonly path: string }
  | { readonly phase: 'failed'; readonly mode: HandoffMode; readonly sessionId: string; readonly reason: string };

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

export class MigrationService {
  private running = false;
  private current: MigrationState = { phase: 'idle' };
  private readonly logger: Logger;
  private readonly now: () => Date;

  constructor(private readonly options: MigrationServiceOptions) {
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? (() => new Date());
  }

  /** True from the start of a handoff until it has finished or failed (R14, R15). */
  get busy(): boolean {
    return this.running;
  }

  /** The phase the last handoff reached (idle, handing-off, written, migrated, failed). */
  get state(): MigrationState {
    return this.current;
  }

  get defaultExecutor(): ExecutorName {
    return this.options.defaultExecutor ?? 'self';
  }

  /** Handoff (R1) or migrate (R2). Throws AiZenError('handoff') when no document could be written; history is never lost (R26). */
  async handoff(request: HandoffRequest): Promise<HandoffOutcome> {
    if (this.running) throw new AiZenError('handoff', 'a handoff is already running');
    const { agent, context, events } = this.options;
    const mode = request.mode;
    const sessionId = context.currentId;
    const goal = normaliseGoal(request.goal);
    const requested = request.executor ?? this.defaultExecutor;
    if (!EXECUTOR_ORDER.includes(requested)) {
      throw new AiZenError('usage', `unknown executor ${JSON.stringify(requested)}: use self, summary or offline`);
    }
    // X1: without a model the offline executor is the first (and only) one tried.
    const first = this.options.model === null ? 'offline' : requested;
    this.running = true;
    try {
      const reused = await this.reusableDocument(request, goal);
      if (reused) return await this.finishUnfinished(reused, sessionId);

      // R21 onBeforeHandoff: the progress hint goes out before anything slow happens.
      this.setState({ phase: 'handing-off', mode, sessionId, executor: first });
      events?.emit('handoff.started', { sessionId, mode, executor: first });
      await this.stopInFlightTurn();

      const snapshot = [...agent.messages];
      const written = await writeHandoffDocument({
        root: this.options.root,
        sessionId,
        now: this.now,
        facts: this.options.facts,
        loadSkill: () => this.loadSkill(),
        renderFacts: this.options.renderFacts ?? defaultRenderFacts,
        input: {
          sessionFile: path.relative(this.options.root, context.sessionFile).split(path.sep).join('/'),
          messages: snapshot,
          maxContextTokens: agent.maxContextTokens,
          ...(request.signal ? { signal: request.signal } : {}),
          ...(goal !== undefined ? { goal } : {}),
        },
        ...this.executorsFrom(requested, sessionId),
        onDowngrade: (from, to, reason) => this.downgrade(sessionId, from, to, reason),
        logger: this.logger,
        ...(this.options.secretScanner ? { secretScanner: this.options.secretScanner } : {}),
        afterDocument: async () => {
          await (this.options.pause ?? pauseHookFromEnv(this.options.env ?? process.env))?.('after-document');
        },
      });
      const { doc, skill, sealed, checks } = written;
      const outcome: HandoffOutcome = {
        mode,
        path: doc.relative,
        absolutePath: doc.absolute,
        executor: written.executor,
        downgrades: written.downgrades,
        cost: written.cost,
        skill: skill.source,
        sessionId,
        newSessionId: null,
        ...(goal !== undefined ? { goal } : {}),
        checks,
      };

      // R23 onHandoff: the old session is saved now, handoff turn and cost included (R28–R30).
      await context.appendLine({
        type: 'handoff',
        at: this.now().toISOString(),
        path: doc.relative,
        executor: written.executor,
        mode,
        downgrades: [...written.downgrades],
        cost: written.cost,
        ...(goal !== undefined ? { goal } : {}),
        checks,
        ...(sealed ? { sha256: sealed.sha256, redactions: sealed.redactions } : {}),
      });
      await context.flush();
      this.setState({ phase: 'written', mode, sessionId, path: doc.relative });
      events?.emit('handoff.written', {
        sessionId,
        mode,
        path: doc.relative,
        absolutePath: doc.absolute,
        executor: written.executor,
        cost: written.cost,
        checks,
      });
      this.logger.info(
        { sessionId, mode, path: doc.relative, executor: written.executor, downgrades: written.downgrades, cost: written.cost, checks },
        'handoff written',
      );
      if (mode === 'handoff') return outcome;

      if (request.review) {
        const verdict = await request.review({ path: doc.relative, absolutePath: doc.absolute });
        if (verdict === 'cancel') {
          this.logger.info({ sessionId, path: doc.relative }, 'migration cancelled at review; the document stays');
          return { ...outcome, cancelled: true };
        }
        // What the successor gets is the file as the person left it: it must still be a document.
        const check = await verifyDocument(this.options.root, doc);
        if (!check.ok) throw new AiZenError('handoff', `the reviewed document is not usable (${check.reason}); nothing was migrated`);
      }
      const { newId } = await this.pruneNaming(doc);
      return { ...outcome, newSessionId: newId };
    } catch (error) {
      const reason = firstLine(AiZenError.isInstance(error) ? error.message : error);
      this.setState({ phase: 'failed', mode, sessionId, reason });
      events?.emit('handoff.failed', { sessionId, mode, reason });
      this.logger.error({ sessionId, mode, error }, 'handoff failed');
      if (AiZenError.isInstance(error)) throw error;
      throw new AiZenError('handoff', `handoff failed: ${reason}`, { cause: error });
    } finally {
      this.running = false;
    }
  }

  /**
   * A retry of a migration whose document and handoff line were written but whose new
   * session was not (a full disk, a kill) reuses that document — no second document, handoff line
   * or commit. Only when nothing was said since, the goal is the same, and the document is still
   * the one that was sealed.
   */
  private async reusableDocument(request: HandoffRequest, goal: string | undefined): Promise<{ line: HandoffLine; doc: DocPath } | null> {
    const line = this.options.context.unfinishedMigration ?? null;
    if (request.mode !== 'migrate' || line === null || request.review || line.goal !== goal) return null;
    const doc: DocPath = { relative: line.path, absolute: path.resolve(this.options.root, line.path) };
    const check = await verifyDocument(this.options.root, doc);
    const intact = check.ok && (line.sha256 === undefined || (await sha256Of(doc.absolute)) === line.sha256);
    if (!intact) {
      this.logger.info({ path: line.path }, "the unfinished migration's document is gone or changed; writing a new one");
      return null;
    }
    return { line, doc };
  }

  private async finishUnfinished({ line, doc }: { line: HandoffLine; doc: DocPath }, sessionId: string): Promise<HandoffOutcome> {
    this.logger.info({ sessionId, path: doc.relative }, 'finishing an unfinished migration with the document it already wrote');
    this.setState({ phase: 'written', mode: 'migrate', sessionId, path: doc.relative });
    const { newId } = await this.pruneNaming(doc);
    return {
      mode: 'migrate',
      path: doc.relative,
      absolutePath: doc.absolute,
      executor: line.executor,
      downgrades: line.downgrades,
      cost: NO_COST,
      skill: (await this.loadSkill()).source,
      sessionId,
      newSessionId: newId,
      ...(line.goal !== undefined ? { goal: line.goal } : {}),
      // An older line without checks: nothing was recorded as failing.
      checks: line.checks ?? { sections: [], facts: [], files: [], commands: [] },
      reused: true,
    };
  }

  /** prune, with the step that failed named: the document is there, only the new session is not. */
  private async pruneNaming(doc: DocPath): Promise<{ oldId: string; newId: string }> {
    try {
      return await this.prune(doc);
    } catch (error) {
      const reason = firstLine(AiZenError.isInstance(error) ? error.message : error);
      throw new AiZenError(
        'handoff',
        `the document was written (${doc.relative}); creating the new session failed: ${reason}. Migrating again reuses this document`,
        { cause: error },
      );
    }
  }

  /**
   * R24–R27: the ConversationContext does the crash-safe part (old file whole and closed with a
   * `migrated` line, new file, pointer last, then the one id switches); the agent's history is
   * replaced only after that succeeded, so a failure leaves the conversation as it was (R26).
   */
  private async prune(doc: DocPath): Promise<{ oldId: string; newId: string }> {
    const { agent, context, events } = this.options;
    const definitions = agent.messages.filter((entry) => entry.definition === true).map((entry) => entry.message);
    // R4, R29: the breakpoint holds the path and nothing else.
    const breakpoint: ChatMessage = { role: 'user', content: doc.relative };
    const { oldId, newId } = await context.migrate({ definitionMessages: definitions, breakpoint, docPath: doc.relative });
    agent.replaceHistory([...definitions.map((message) => ({ message, definition: true })), { message: breakpoint }]);
    // R25: stale usage would make the guard judge the new session's first message by the old one.
    agent.lastUsage = null;
    this.setState({ phase: 'migrated', oldId, newId, path: doc.relative });
    events?.emit('session.migrated', { oldId, newId, path: doc.relative });
    this.logger.info({ oldId, newId, path: doc.relative }, 'session migrated');
    return { oldId, newId };
  }

  /** The executors from the requested one down (R11); X1: with no model, offline only, said when someone asked for a model. */
  private executorsFrom(requested: ExecutorName, sessionId: string): { executors: Executor[]; earlier: Downgrade[] } {
    const earlier: Downgrade[] = [];
    let start = EXECUTOR_ORDER.indexOf(requested);
    if (this.options.model === null && requested !== 'offline') {
      if (requested !== this.defaultExecutor) {
        earlier.push({ from: requested, reason: 'no model is configured' });
        this.downgrade(sessionId, requested, 'offline', 'no model is configured');
      }
      start = EXECUTOR_ORDER.indexOf('offline');
    }
    return { executors: EXECUTOR_ORDER.slice(start).map((name) => this.executor(name)), earlier };
  }

  private downgrade(sessionId: string, from: ExecutorName, to: ExecutorName, reason: string): void {
    this.logger.warn({ sessionId, from, to, reason }, 'handoff downgraded');
    this.options.events?.emit('handoff.downgraded', { sessionId, from, to, reason });
  }

  private executor(name: ExecutorName): Executor {
    const model = this.options.model;
    switch (name) {
      case 'self':
        return createSelfExecutor({ agent: this.options.agent, toolNames: this.options.toolNames });
      case 'summary':
        if (model === null) return { name, run: async () => ({ ok: false, reason: 'no model is configured', cost: NO_COST }) };
        return createSummaryExecutor({ client: model.client, model: model.model });
      case 'offline':
        return createOfflineExecutor();
      case 'fork':
        // Only an idle Claude Code session is forked (the daemon's idle handoff); never one of ai-zen's own.
        return {
          name,
          run: async () => ({ ok: false, reason: 'the fork executor is only for an idle Claude Code session', cost: NO_COST }),
        };
    }
  }

  /** R22: the handoff must not race the turn it interrupts. */
  private async stopInFlightTurn(): Promise<void> {
    const { agent } = this.options;
    if (!agent.busy) return;
    agent.abort();
    const deadline = Date.now() + (this.options.abortWaitMs ?? 10_000);
    while (agent.busy) {
      if (Date.now() > deadline) throw new AiZenError('handoff', 'the turn in progress did not stop after it was aborted');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private loadSkill() {
    return loadHandoffSkill({
      projectRoot: this.options.root,
      env: this.options.env ?? process.env,
      logger: this.logger,
      ...(this.options.bundledSkillPath ? { bundledPath: this.options.bundledSkillPath } : {}),
    });
  }

  private setState(state: MigrationState): void {
    this.current = state;
  }
}

async function sha256Of(file: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex');
  } catch {
    return null;
  }
}
