// The daemon migrates a session that no live ai-zen process owns, through the ONE
// migration service of src/handoff: it takes the session's lock by opening it (a live owner makes
// that fail, so the CLI and the daemon never both migrate one session), rebuilds the agent from
// the file, and runs the service with the configured default executor — offline when no model is
// configured (X1). One migration at a time.
import path from 'node:path';
import type { Config } from '../../config/load-config.js';
import { AiZenError, SessionOwnedError } from '../../errors.js';
import { EventBus } from '../../events.js';
import type { HandoffMode, HandoffOutcome } from '../../handoff/migration-service.js';
import type { Logger } from 'pino';
import type { Env, ProjectPaths } from '../../paths.js';
import type { FactsProvider } from '../../probe/facts.js';
import { checkTrust, TRUST_COMMAND } from '../../config/trust.js';
import { runGit } from '../../probe/run-git.js';
import { ConversationContext } from '../../session/conversation-context.js';
import type { ExecutorName } from '../../session/format.js';
import { SessionStore, type LatestPointer } from '../../session/store.js';
import { shortId } from '../../short-id.js';

export interface DaemonMigrationRequest {
  readonly sessionId: string;
  readonly mode: HandoffMode;
  readonly executor?: ExecutorName;
  /** S1: the next goal the document is written towards. */
  readonly goal?: string;
  /** Why the daemon runs it (logged): 'overflow', 'ipc'. */
  readonly reason: string;
}

export interface DaemonMigratorOptions {
  readonly paths: ProjectPaths;
  readonly config: Config;
  /** The daemon's facts cache (D2): every handoff the daemon runs gets its facts. */
  readonly facts: FactsProvider;
  /** The daemon's bus. Only what the session file will not show is passed on (started, downgraded, failed). */
  readonly events: EventBus;
  /** The daemon's logger; the migration's parts log through children of it. */
  readonly logger: Logger;
  readonly env: Env;
}

export interface DaemonMigrator {
  run(request: DaemonMigrationRequest): Promise<HandoffOutcome>;
  /** The migration running now, if any. */
  readonly current: { readonly sessionId: string; readonly mode: HandoffMode; readonly since: string } | null;
  /** Resolves when the queue is empty (the shutdown lets a running migration finish). */
  idle(): Promise<void>;
  /** Refuses new requests from now on. */
  close(): void;
}

/** Events of a daemon-run handoff that its session file records anyway (the watcher emits those). */
const FROM_THE_FILE = new Set(['handoff.written', 'session.migrated']);

export function createDaemonMigrator(options: DaemonMigratorOptions): DaemonMigrator {
  let tail: Promise<unknown> = Promise.resolve();
  let current: DaemonMigrator['current'] = null;
  let closed = false;

  async function migrate(request: DaemonMigrationRequest): Promise<HandoffOutcome> {
    const { paths, config, logger, env } = options;
    const short = shortId(request.sessionId);
    let opened;
    try {
      opened = await ConversationContext.open({
        paths,
        id: request.sessionId,
        logger: logger.child({ component: 'session' }),
        env,
        holder: 'daemon',
      });
    } catch (error) {
      if (SessionOwnedError.isInstance(error)) {
        throw new SessionOwnedError(request.sessionId, `${error.message}; its owner hands it over (/handoff or /migrate there)`, {
          cause: error,
        });
      }
      throw error;
    }
    const { context } = opened;
    try {
      // Loaded on the first migration: an idle daemon does not carry the agent, its tools and the
      // openai client in memory.
      const [{ Agent }, { createModelClient }, { ContextGuardPlugin }, { createTools }, { MigrationService }] = await Promise.all([
        import('../../agent/agent.js'),
        import('../../agent/model-client.js'),
        import('../../agent/plugins/context-guard.js'),
        import('../../agent/tools/index.js'),
        import('../../handoff/migration-service.js'),
      ]);
      if (opened.closed) throw new AiZenError('session', `session ${short} is already migrated; nothing to hand off`);
      const log = logger.child({ component: 'migrator' });
      // T4: a session that came with the repo (tracked by git) is someone else's words: in a repo
      // the user has not trusted it is never handed to a model (the self executor could run its
      // instructions with exec), only written up offline.
      const fromGit = await isTrackedByGit(paths.root, context.sessionFile, env);
      const offlineOnly = fromGit && (await checkTrust(paths.root, env)).state !== 'trusted';
      if (offlineOnly)
        log.warn(
          { sessionId: request.sessionId },
          `session ${short} came from git and this repo is not trusted: handed off offline, never to a model (trust the repo with: ${TRUST_COMMAND})`,
        );
      const modelConfigured = config.modelConfigured && !offlineOnly;
      // Item 9: the session's own model (its header), not whatever the config says today.
      const model = opened.header.model;
      const client = createModelClient({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        timeoutMs: config.modelTimeoutMs,
        logger: logger.child({ component: 'model' }),
      });
      const tools = createTools({ execTimeoutMs: config.execTimeoutMs, execOutputLimit: config.execOutputLimit });
      const agent = new Agent({
        client,
        model,
        maxContextTokens: opened.header.maxContextTokens,
        root: paths.root,
        tools,
        recorder: context,
        messages: opened.messages,
        lastUsage: opened.lastUsage,
        logger: logger.child({ component: 'agent', sessionId: request.sessionId }),
      });
      const bus = new EventBus((error, name) => log.warn({ err: error, event: name }, 'event listener failed'));
      bus.onAny((event) => {
        if (!FROM_THE_FILE.has(event.name)) options.events.emit(event.name, event.payload as never);
      });
      const service = new MigrationService({
        root: paths.root,
        agent,
        context,
        toolNames: tools.map((tool) => tool.name),
        model: modelConfigured ? { client, model } : null,
        defaultExecutor: offlineOnly ? 'offline' : config.executor,
        facts: options.facts,
        events: bus,
        logger: logger.child({ component: 'handoff', sessionId: request.sessionId }),
        env,
      });
      // R14: the handoff turn may go up to ×2 of the window while the service is busy.
      agent.use(new ContextGuardPlugin({ isBusy: () => service.busy }));
      log.info(
        { sessionId: request.sessionId, mode: request.mode, reason: request.reason, model: modelConfigured ? model : null },
        'daemon handing off a session',
      );
      const store = new SessionStore(paths);
      const pointerBefore = await store.readLatestPointer().catch(() => null);
      const executor = offlineOnly ? 'offline' : request.executor;
      const outcome = await service.handoff({
        mode: request.mode,
        ...(executor ? { executor } : {}),
        ...(request.goal !== undefined ? { goal: request.goal } : {}),
      });
      await keepLatestPointer(store, pointerBefore, request.sessionId, outcome, log);
      return outcome;
    } finally {
      await context
        .close()
        .catch((error: unknown) =>
          logger.warn({ err: error, sessionId: request.sessionId }, 'could not close the session after the handoff'),
        );
    }
  }

  return {
    run(request) {
      if (closed) return Promise.reject(new AiZenError('daemon', 'the daemon is shutting down'));
      const result = tail.then(async () => {
        if (closed) throw new AiZenError('daemon', 'the daemon is shutting down');
        current = { sessionId: request.sessionId, mode: request.mode, since: new Date().toISOString() };
        try {
          return await migrate(request);
        } finally {
          current = null;
        }
      });
      tail = result.catch(() => {});
      return result;
    },
    get current() {
      return current;
    },
    async idle() {
      await tail;
    },
    close() {
      closed = true;
    },
  };
}

/**
 * A migration points `--continue` at the new session (R25) — right for the session the person is
 * in. The daemon may migrate an older session nobody has open; then the pointer goes back to the
 * session it named, unless something else moved it meanwhile.
 */
async function keepLatestPointer(
  store: SessionStore,
  before: LatestPointer | null,
  migratedId: string,
  outcome: HandoffOutcome,
  log: Logger,
): Promise<void> {
  if (!before || before.id === migratedId || outcome.newSessionId === null) return;
  try {
    const now = await store.readLatestPointer();
    if (now?.id !== outcome.newSessionId) return;
    await store.writeLatestPointer(before);
    log.info(
      { latest: before.id, migrated: migratedId },
      'the migrated session was not the latest; the latest-session pointer is left where it was',
    );
  } catch (error) {
    log.warn({ err: error }, 'could not put the latest-session pointer back');
  }
}

/** The session file is in git's index: it came with the repo (or was added to it), not from this machine's agent. */
async function isTrackedByGit(root: string, file: string, env: Env): Promise<boolean> {
  const run = await runGit(root, ['ls-files', '--error-unmatch', '--', path.relative(root, file)], { env, timeoutMs: 10_000 });
  return run.ok;
}
