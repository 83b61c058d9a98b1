// The daemon's composition root (D1–D5): the leaves, wired once. The caller (run-daemon.ts) holds
// the daemon lock and passes it in: the IPC server refuses to serve without it.
import path from 'node:path';
import { isWatchedAgent } from '../../config/agent-names.js';
import { loadConfig } from '../../config/load-config.js';
import { createConfigKeeper } from './config-keeper.js';
import { allowsProjectChoices, checkTrust, describeTrust } from '../../config/trust.js';
import { EventBus, type AnyEvent } from '../../events.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import { startIpcServer, type IpcServer } from '../../ipc/server.js';
import { isLockHeld, sessionLockName, type HeldLock } from '../../lock/os-lock.js';
import type { Logger } from 'pino';
import { aiZenHome, projectPaths, type Env } from '../../paths.js';
import { createFactsProvider } from '../../probe/capture-facts.js';
import { createDaemonMigrator } from '../handoffs/daemon-migrator.js';
import { notificationFor } from '../side-channels/daemon-notifications.js';
import { createFactsCache } from '../handoffs/facts-cache.js';
import { createForeignSessions } from '../handoffs/foreign-sessions.js';
import { createForeignRecords } from '../handoffs/foreign-records.js';
import { pauseHookFromEnv } from '../../session/pause-hook.js';
import { foreignSummaryExecutor } from '../handoffs/foreign-summary.js';
import { answerAgentHook as answerHookOf } from '../sources/agent-hook-answer.js';
import { claudeRunsInTerminal } from '../sources/claude-code/claude-interactive.js';
import type { RequestParams } from '../../ipc/protocol.js';
import { watchGitState, type GitWatch } from '../committing/git-watch.js';
import { createHandoffCommitter } from '../committing/handoff-committer.js';
import { keepHandoffsOutOfStatus } from '../committing/commit-to-ref.js';
import { createHooksRunner } from '../side-channels/hooks-runner.js';
import type { DaemonCore } from '../side-channels/daemon-core.js';
import { createIpcHandlers } from '../side-channels/ipc-handlers.js';
import { answerStatusline } from '../side-channels/statusline-answer.js';
import { answerTranscript } from '../side-channels/transcript-answer.js';
import { createContinuedSessions } from '../handoffs/continued-sessions.js';
import { ProcessSuccessors } from '../handoffs/process-successors.js';
import { cleanLeftovers } from './leftover-cleanup.js';
import { passStartGate } from './start-gate.js';
import { watchForIdleExit, type IdleExit } from './idle-exit.js';
import { answerHookInput } from './hook-input-answer.js';
import { removeOrphans } from '../../session/orphan-cleanup.js';
import { SessionStore } from '../../session/store.js';
import { createNotifier, type Notifier } from '../side-channels/notifier.js';
import { findSource } from '../watching/session-source.js';
import { SessionMonitor } from '../handoffs/session-monitor.js';
import { createSessionSources } from '../sources/index.js';
import { TranscriptWatchers } from '../watching/transcript-watchers.js';
import { loadCompactionPoints } from '../watching/compaction-points.js';
import { UsageHistory } from '../watching/usage-history.js';

/** How long a handoff's notification waits for its commit before it goes out saying "committing…". */
const COMMIT_WAIT_MS = 15_000;

export interface DaemonOptions {
  /** Real path of the project root. */
  readonly root: string;
  readonly env: Env;
  readonly logger: Logger;
  /** The daemon lock, held (D1). */
  readonly lock: HeldLock;
  readonly version: string;
  /** Where the log is, for status. */
  readonly logFile: string;
  /** The `stop` request: starts the shutdown (after the reply went out). */
  readonly requestStop: (reason: string) => void;
  /** The repo has gone quiet (`daemon.idleExitMinutes`): starts the shutdown, saying why. */
  readonly idleExit?: (reason: string) => void;
  /** Whether a session start would bring the daemon back; asked before each idle exit. */
  readonly comesBack?: () => Promise<boolean>;
  readonly reconcileIntervalMs?: number;
  readonly now?: () => Date;
}

export interface Daemon {
  readonly socketPath: string;
  readonly events: EventBus;
  /** Stops watching, lets a running migration finish, closes IPC. Idempotent. */
  close(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { root, env, logger } = options;
  const paths = projectPaths(root);
  const config = await loadConfig({ root, env });
  logger.info(
    {
      root,
      version: options.version,
      commit: config.daemon.commit,
      notifications: config.daemon.notifications,
      warnings: config.daemon.warnings,
      modelConfigured: config.modelConfigured,
      executor: config.executor,
      trust: config.trust.state,
    },
    'daemon starting',
  );
  if (!allowsProjectChoices(config.trust)) logger.warn({ trust: config.trust.state }, `this repo is ${describeTrust(config.trust)}`);
  for (const line of config.ignored) logger.warn({}, line);
  // T3: the project's endpoint is refused; with no model configured the daemon hands off offline.
  if (config.refusedEndpoint !== null) logger.warn({}, `${config.refusedEndpoint}; the daemon hands sessions over offline`);

  // The one owner of the config from here on: what is read at the time of use asks it.
  const keeper = await createConfigKeeper({ root, env, logger: logger.child({ component: 'config' }), initial: config });
  /** The config in force, field by field at the time of use (a handoff's model, executor, endpoint). */
  const live = new Proxy(config, { get: (_target, key) => Reflect.get(keeper.current(), key) });
  const events = new EventBus((error, name) => logger.warn({ err: error, event: name }, 'event listener failed'));
  // What was learned about where each agent compacts: before the sources, whose folds use it.
  const compactionPoints = await loadCompactionPoints({
    home: aiZenHome(env),
    logger: logger.child({ component: 'compaction-points' }),
    repo: root,
  });
  const sources = createSessionSources({ root, paths, env, config, learned: compactionPoints });
  // ai-zen's own sessions: the session lock; another agent's: what its source knows (a pid file, …).
  const isOwned = (file: string) => {
    const source = findSource(sources, file);
    return source?.isLive ? source.isLive(file) : isLockHeld(sessionLockName(file), { env });
  };
  // Gemini CLI has no sign of its process: its sessions are never called exited.
  const livenessKnown = (file: string) => {
    const source = findSource(sources, file);
    return source !== null && (source.isLive !== undefined || source.kind === 'ai-zen');
  };

  const gitWatch: GitWatch = await watchGitState({ root, env, logger: logger.child({ component: 'git-watch' }) });
  const facts = createFactsCache({ provider: createFactsProvider({ root, env, ...(options.now ? { now: options.now } : {}) }) });
  const committer = createHandoffCommitter({
    root,
    enabled: config.daemon.autoCommit,
    ...(config.daemon.commit === 'ref' ? { ref: config.daemon.commitRef } : {}),
    events,
    env,
    logger: logger.child({ component: 'committer' }),
  });
  // Documents committed to a side ref stay out of `git status` from the first one on.
  if (config.daemon.commit === 'ref')
    await keepHandoffsOutOfStatus(root, path.relative(root, paths.handoffs), env).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not keep the handoff documents out of git status'),
    );
  gitWatch.onChange(() => {
    facts.invalidate();
    void facts.capture().catch((error: unknown) => logger.warn({ err: error }, 'facts refresh failed'));
    committer.retry();
  });

  const migrator = createDaemonMigrator({ paths, config: live, facts, events, logger, env });
  const continued = createContinuedSessions({
    sources,
    sessionOfDocument: (document) => committer.list().find((record) => record.path === document)?.sessionId ?? null,
  });
  // Which fresh session continues a handed-off one in the agent's own terminal (after `/clear`).
  const successors = new ProcessSuccessors();
  const pause = pauseHookFromEnv(env);
  const foreign = createForeignSessions({
    root,
    paths,
    env,
    events,
    committer,
    facts,
    sources,
    logger: logger.child({ component: 'foreign-sessions' }),
    stateOf: (file) => watcher.state(file),
    notice: (title, body) => void notifier.notify({ title, body }).catch(() => {}),
    // Each agent's session runs by its own settings, never another agent's.
    termsFor: (agent) => {
      if (!isWatchedAgent(agent)) return undefined;
      const settings = keeper.current().agents[agent];
      return {
        graceMs: settings.graceSeconds * 1000,
        selfDeadlineMs: settings.selfDeadlineSeconds * 1000,
        idle: settings.idleHandoff,
        models: settings.models,
        command: settings.command,
      };
    },
    summary: () => foreignSummaryExecutor(keeper.current(), logger.child({ component: 'model' })),
    records: createForeignRecords({ root, env, logger: logger.child({ component: 'foreign-records' }) }),
    ...(pause ? { pause } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const monitor = new SessionMonitor({
    root,
    events,
    committer,
    stateOf: (file) => watcher.state(file),
    migrator,
    isOwned,
    foreign,
    warnings: { enabled: config.daemon.warnings, warnAt: config.warnAt },
    compactionPoints,
    logger: logger.child({ component: 'monitor' }),
  });
  const usage = new UsageHistory(options.now);
  const watcher: TranscriptWatchers = new TranscriptWatchers({
    sources,
    logger: logger.child({ component: 'watcher' }),
    ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    onUpdate: (update, info) => {
      usage.record(update);
      monitor.handle(update, info);
    },
    onReconcile: () => monitor.recheckOwners((file) => watcher.state(file)),
  });

  const notifier: Notifier = createNotifier({ enabled: config.daemon.notifications, env, logger: logger.child({ component: 'notifier' }) });
  const hooks = createHooksRunner({
    root,
    env,
    logger: logger.child({ component: 'hooks' }),
    // T4: asked before each hook, so a hook changed after `trust` stops running at once.
    refusal: async () => {
      const trust = await checkTrust(root, env);
      return allowsProjectChoices(trust) ? null : `this repo is ${describeTrust(trust)}`;
    },
  });

  let ready = false;
  let idle: IdleExit = { touch() {}, close() {} };
  const core: DaemonCore = {
    root,
    paths,
    get config() {
      return keeper.current();
    },
    configNote: () => keeper.note(),
    version: options.version,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
    socketPath: socketPathFor(root, { env }),
    logFile: options.logFile,
    facts,
    watcher,
    monitor,
    committer,
    migrator,
    foreign,
    continued,
    usage,
    isOwned,
    livenessKnown,
    ready: () => ready,
    requestStop: options.requestStop,
  };

  // Before the socket answers: an ai-zen session present now is history, one begun once `start` returned is news.
  await watcher.list();
  // The lock is held (the caller took it), so a socket left at the path is a dead daemon's.
  const ipc: IpcServer = await startIpcServer({
    socketPath: core.socketPath,
    handlers: {
      ...createIpcHandlers(core),
      'agent-hook': (params) => {
        idle.touch();
        return answerAgentHook(params);
      },
      // The lean hook entry's request: the agent's input as it came, read here.
      'agent-hook-input': (params) => {
        idle.touch();
        return answerHookInput(params, answerAgentHook);
      },
      transcript: (params) => answerTranscript(params, { paths, sources, watcher }),
      // Claude Code's statusline passes its reading and asks what to show beside it.
      statusline: async (params) => {
        idle.touch();
        const claude = keeper.current().agents['claude-code'];
        return answerStatusline(params, {
          stateOf: (file) => watcher.state(file),
          documents: () => committer.list(),
          settings: { ...claude, learnedPoint: (model) => compactionPoints.pointFor('claude-code', model) },
          idleOf: (file) => foreign.idleOf(file),
        });
      },
    },
    logger: logger.child({ component: 'ipc' }),
    lock: options.lock,
  });

  /** X3: another agent's hook asks (Claude Code's or Codex's). */
  async function answerAgentHook(params: RequestParams<'agent-hook'>): Promise<unknown> {
    const source = sources.find((candidate) => candidate.kind === params.agent);
    if (!source) return { output: null };
    return answerHookOf(params, {
      paths,
      env,
      source,
      watcher,
      foreign,
      facts,
      successors,
      continued,
      logger: logger.child({ component: 'hooks' }),
      isLive: async (transcript, except) => {
        const owner = sources.find((candidate) => candidate.matches(transcript));
        return owner?.isLive ? owner.isLive(transcript, except).catch(() => null) : null;
      },
      // Only Claude Code is handed off while idle, and only its registry says a terminal from a script.
      ...(source.kind === 'claude-code' ? { inTerminal: (agentPid: number) => claudeRunsInTerminal(env, agentPid) } : {}),
    });
  }

  let notifying: Promise<void> = Promise.resolve();
  events.onAny((event) => {
    // Subscribers first: the bytes are on their sockets before the log line is formatted and
    // written (a quarter of a millisecond, measured on bench g, when it went first).
    ipc.publish(event);
    logger.info({ event: event.name, ...event.payload }, 'event');
    void hooks.runForEvent(event).catch((error: unknown) => logger.warn({ err: error, event: event.name }, 'hook runner failed'));
    // One at a time, so the desktop shows them in the order they happened.
    notifying = notifying.then(() => notify(event)).catch((error: unknown) => logger.warn({ err: error }, 'notification failed'));
  });
  async function notify(event: AnyEvent): Promise<void> {
    const owner = event.name === 'session.overflowed' ? await monitor.ownerOf(event.payload.sessionId) : undefined;
    // One notification per handoff — it waits (bounded) for the commit and names its outcome.
    const commit = event.name === 'handoff.written' ? await committer.outcome(event.payload.path, COMMIT_WAIT_MS) : undefined;
    const notification = notificationFor(event, { ...(owner ? { overflowOwner: owner } : {}), ...(commit ? { commit } : {}) });
    if (notification) await notifier.notify(notification);
  }

  void facts.capture().catch((error: unknown) => logger.warn({ err: error }, 'first facts capture failed'));
  // Before the watcher: an empty placeholder left by a kill -9 must not be taken for a document.
  await cleanLeftovers({ paths, isOwned, logger: logger.child({ component: 'cleanup' }) });
  // And what a kill -9 mid-migration left (a successor nothing points to, a document nothing names).
  const cleanupLogger = logger.child({ component: 'cleanup' });
  await removeOrphans({ paths, store: new SessionStore(paths, { logger: cleanupLogger }), isOwned, logger: cleanupLogger, env });
  // What an earlier daemon did for other agents' sessions, known before their transcripts are read.
  await passStartGate(env, 'AI_ZEN_TEST_LISTENING_GATE');
  await foreign.restore();
  await watcher.start();
  ready = true;
  logger.info({ socket: core.socketPath, sessions: watcher.states().length }, 'daemon ready');
  // Declared before the IPC server's handlers run: they touch it. An enabled repo's next session brings the daemon back.
  const idleExit = options.idleExit;
  idle = watchForIdleExit({
    idleMs: idleExit ? config.daemon.idleExitMinutes * 60_000 : 0,
    logger: logger.child({ component: 'idle' }),
    exit: (reason) => idleExit?.(reason),
    reasonToStay: async () => {
      if (options.comesBack && !(await options.comesBack())) return 'the repo is not enabled: no session would start the daemon again';
      if (migrator.current !== null) return 'a handoff is running';
      if (foreign.busy()) return "another agent's handoff is under way";
      if (
        committer
          .list()
          .some((record) => record.status.state === 'pending' || (record.status.state === 'deferred' && record.status.retryable))
      )
        return 'a handoff document waits for its commit';
      if (ipc.subscribers() > 0) return 'a client is subscribed';
      for (const state of watcher.states()) if (await isOwned(state.file).catch(() => true)) return 'a live session';
      return null;
    },
  });

  let closing: Promise<void> | null = null;
  return {
    socketPath: core.socketPath,
    events,
    close() {
      closing ??= (async () => {
        // No new client from here: the socket's file goes at once, even if a slow step below meets the
        // shutdown deadline (its connections, a `stop` waiting for its reply, are served to the end).
        const ipcClosed = ipc.close();
        keeper.close();
        idle.close();
        migrator.close();
        foreign.close();
        await watcher.close();
        // A running migration finishes (the session file is whole at every step of it anyway).
        await migrator.idle();
        gitWatch.close();
        await committer.close();
        await compactionPoints.flushed();
        await ipcClosed;
        logger.info({}, 'daemon stopped');
      })();
      return closing;
    },
  };
}
