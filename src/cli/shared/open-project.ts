// The composition root: everything a command needs for one project, wired once, with real
// defaults. Commands (print, chat, handoff, migrate) call `openProject`; extensions (the
// migration service, auto-migration, the session lock) attach to what it returns.
import path from 'node:path';
import type OpenAI from 'openai';
import { Agent, type TurnResult } from '../../agent/agent.js';
import { createModelClient } from '../../agent/model-client.js';
import { ContextGuardPlugin } from '../../agent/plugins/context-guard.js';
import { systemPrompt } from '../../agent/system-prompt.js';
import { createTools } from '../../agent/tools/index.js';
import type { Tool } from '../../agent/types.js';
import { loadConfig, type Config } from '../../config/load-config.js';
import { AiZenError } from '../../errors.js';
import type { Logger } from 'pino';
import { createLogger } from '../../log/logger.js';
import { projectPaths, type Env, type ProjectPaths } from '../../paths.js';
import { ConversationContext, type OpenedSession } from '../../session/conversation-context.js';
import { resolveSessionId } from '../../session/resolve-session-id.js';
import { SessionStore } from '../../session/store.js';
import { removeOrphans } from '../../session/orphan-cleanup.js';
import { isLockHeld, sessionLockName } from '../../lock/os-lock.js';
import { ensureGitignore, findProjectRoot } from './project-root.js';
import { shortId } from '../../short-id.js';

export const LOG_FILE_NAME = 'ai-zen.log';

/** What an extension may hook into, per open project. */
export interface ProjectHooks {
  /** After each completed turn (print mode: after the answer was written). R19/R20 auto-migration hangs here. */
  afterTurn?(result: TurnResult): void | Promise<void>;
  /** When the command is done with the project. */
  close?(): void | Promise<void>;
}

/**
 * Called once the project is open, before the first turn: install plugins (`project.agent.use`),
 * take locks, build services. Returns the hooks it wants.
 */
export type ProjectExtension = (
  project: OpenProject,
  mode: { readonly interactive: boolean },
) => ProjectHooks | undefined | Promise<ProjectHooks | undefined>;

export interface OpenProjectOptions {
  readonly cwd: string;
  readonly env?: Env;
  /** `--continue`: the latest session (following a migration to its successor). */
  readonly continueLatest?: boolean;
  /** `--resume <id>`. */
  readonly resumeId?: string;
  readonly verbose?: boolean;
  /** `--model`. */
  readonly model?: string;
  /** Fail with AiZenError('config') before touching any session when no model is configured. */
  readonly requireModel?: boolean;
  readonly extensions?: readonly ProjectExtension[];
  readonly interactive?: boolean;
  /** Where one-line notices go (project settings ignored in an untrusted repo). Default: a line on `stderr`. */
  readonly notice?: (line: string) => void;
  /** The command's stderr: notices and the --verbose log (default the process's). */
  readonly stderr?: NodeJS.WritableStream;
}

export interface OpenProject {
  /** Real path of the project root (the git top level, else the working folder). */
  readonly root: string;
  readonly paths: ProjectPaths;
  /** The config, with the open session's own model and window (its header) when it was resumed. */
  readonly config: Config;
  readonly logger: Logger;
  readonly store: SessionStore;
  /** The one owner of the session id (R27). */
  readonly context: ConversationContext;
  readonly agent: Agent;
  readonly client: OpenAI;
  readonly tools: readonly Tool[];
  readonly contextGuard: ContextGuardPlugin;
  /** The session was opened (`--continue`, `--resume`) rather than created. */
  readonly resumed: boolean;
  /** ContextGuard asks this before each request; the migration service sets it (R14: ×2 while busy). */
  isHandoffBusy: () => boolean;
  /** Runs every extension's afterTurn, in order. */
  afterTurn(result: TurnResult): Promise<void>;
  /** Runs extensions' close hooks, then flushes and closes the session. Idempotent. */
  close(): Promise<void>;
}

// Where the project is, and its .gitignore: in their own small module so `ai-zen-daemon` can use
// them without loading the agent stack.
export { ensureGitignore, findProjectRoot };

/** A migrated session names where it goes on (it said "carry on with --continue"). */
async function closedSessionLine(store: SessionStore, id: string): Promise<string> {
  const last = await store.read(id).then(
    (content) => content.lines.at(-1),
    () => undefined,
  );
  const successor = last?.type === 'migrated' ? last.newId : null;
  return successor
    ? `session ${id} is closed: it was migrated to session ${successor} (ai-zen --resume ${shortId(successor)})`
    : `session ${id} is closed: it was migrated to a new session; carry on with --continue`;
}

export async function openProject(options: OpenProjectOptions): Promise<OpenProject> {
  const env = options.env ?? process.env;
  if (options.continueLatest && options.resumeId !== undefined)
    throw new AiZenError('usage', '--continue and --resume cannot be used together');
  const root = await findProjectRoot(options.cwd, env);
  const paths = projectPaths(root);
  const logger = createLogger({
    file: path.join(paths.logs, LOG_FILE_NAME),
    verbose: options.verbose === true,
    ...(options.stderr !== undefined && options.stderr !== process.stderr ? { verboseDestination: options.stderr } : {}),
    name: 'ai-zen',
  });
  try {
    return await assemble(options, env, root, paths, logger);
  } catch (error) {
    logger.error({ err: error }, 'could not open the project');
    throw error;
  }
}

async function assemble(options: OpenProjectOptions, env: Env, root: string, paths: ProjectPaths, logger: Logger): Promise<OpenProject> {
  const config = await loadConfig({ root, env, overrides: options.model !== undefined ? { model: options.model } : {} });
  logger.info(
    { root, model: config.model, baseURL: config.baseURL, maxContextTokens: config.maxContextTokens, files: config.files },
    'project opened',
  );
  const stderr = options.stderr ?? process.stderr;
  const notice = options.notice ?? ((line: string) => void stderr.write(`ai-zen: ${line}\n`));
  for (const line of config.ignored) {
    logger.warn({ trust: config.trust.state }, line);
    notice(line);
  }
  if (config.refusedEndpoint !== null) {
    logger.warn({ trust: config.trust.state }, config.refusedEndpoint);
    // T3: a command that talks to a model stops here; a handoff goes on offline.
    if (options.requireModel || options.interactive) throw new AiZenError('config', config.refusedEndpoint);
    notice(config.refusedEndpoint);
  }
  if (options.requireModel && !config.modelConfigured) {
    throw new AiZenError(
      'config',
      'no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint), or baseURL in .ai-zen/config.json',
    );
  }
  // Each part logs through a child that names it, so a line says who spoke.
  const sessionLogger = logger.child({ component: 'session' });
  const store = new SessionStore(paths, { logger: sessionLogger });
  await store.cleanup();
  // What a kill -9 mid-migration left (a successor nothing points to, a document nothing names).
  await removeOrphans({ paths, store, isOwned: (file) => isLockHeld(sessionLockName(file), { env }), logger: sessionLogger, env });
  await ensureGitignore(paths, logger);

  let opened: OpenedSession | null = null;
  if (options.continueLatest) {
    opened = await ConversationContext.openLatest({ paths, logger: sessionLogger, env });
    if (opened === null) throw new AiZenError('session', `no session to continue in ${root}; start one with ai-zen -p "…"`);
  } else if (options.resumeId !== undefined) {
    const id = resolveSessionId(options.resumeId, await store.list());
    opened = await ConversationContext.open({ paths, logger: sessionLogger, env, id });
  }
  if (opened?.closed) {
    await opened.context.close().catch(() => {});
    throw new AiZenError('session', await closedSessionLine(store, opened.header.id));
  }
  const context =
    opened?.context ??
    (await ConversationContext.create({
      paths,
      logger: sessionLogger,
      env,
      model: config.model,
      maxContextTokens: config.maxContextTokens,
    }));
  // A session keeps the model and window it was started with (its header is its
  // truth, the daemon judges overflow by it); a config change applies to new sessions, said once.
  const sessionConfig = opened ? { ...config, model: opened.header.model, maxContextTokens: opened.header.maxContextTokens } : config;
  if (opened && (opened.header.model !== config.model || opened.header.maxContextTokens !== config.maxContextTokens)) {
    const line = `session ${shortId(opened.header.id)} keeps its own model ${opened.header.model} and window ${opened.header.maxContextTokens} (the config now says ${config.model}, ${config.maxContextTokens}: new sessions use that)`;
    logger.info({ sessionId: opened.header.id }, line);
    notice(line);
  }

  const client = createModelClient({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    timeoutMs: config.modelTimeoutMs,
    logger: logger.child({ component: 'model' }),
  });
  const tools = createTools({
    execTimeoutMs: config.execTimeoutMs,
    execOutputLimit: config.execOutputLimit,
    // S4: the chain is read through the store, read-only; the predecessor is asked of the one id owner (R27).
    previousSession: { sessions: store, previousId: () => context.header.previousId },
  });
  const agent = new Agent({
    client,
    model: sessionConfig.model,
    maxContextTokens: sessionConfig.maxContextTokens,
    root,
    tools,
    recorder: context,
    messages: opened?.messages ?? [],
    lastUsage: opened?.lastUsage ?? null,
    logger: logger.child({ component: 'agent' }),
  });
  if (!opened) await agent.append(systemPrompt({ root, tools }), { definition: true });
  logger.info({ sessionId: context.currentId, resumed: opened !== null }, opened ? 'session resumed' : 'session created');

  const hooks: ProjectHooks[] = [];
  let closing: Promise<void> | null = null;
  const project: OpenProject = {
    root,
    paths,
    config: sessionConfig,
    logger,
    store,
    context,
    agent,
    client,
    tools,
    contextGuard: new ContextGuardPlugin({ isBusy: () => project.isHandoffBusy() }),
    resumed: opened !== null,
    isHandoffBusy: () => false,
    async afterTurn(result) {
      for (const hook of hooks) await hook.afterTurn?.(result);
    },
    close() {
      closing ??= (async () => {
        try {
          for (const hook of [...hooks].reverse()) await hook.close?.();
        } finally {
          await context.close();
        }
      })();
      return closing;
    },
  };
  agent.use(project.contextGuard);
  try {
    for (const extension of options.extensions ?? []) {
      const added = await extension(project, { interactive: options.interactive === true });
      if (added) hooks.push(added);
    }
  } catch (error) {
    await project.close().catch(() => {});
    throw error;
  }
  return project;
}
