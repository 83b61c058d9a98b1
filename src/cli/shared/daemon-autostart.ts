// An enabled repo keeps its daemon up: an agent's session start there — Claude Code's
// or Codex's SessionStart hook, ai-zen's own chat or `-p` turn — launches the daemon, detached,
// when none runs, and never waits for it to answer.
import { projectPaths, type Env } from '../../paths.js';
import type { Logger } from 'pino';
import { silentLogger } from '../../log/logger.js';
import { isDaemonRunning } from './daemon-client.js';
import { launchDaemon } from './launch-daemon.js';
import { isEnabled } from './enabled-repos.js';
import { ensureGitignore } from './project-root.js';

export type AutostartOutcome = 'not-enabled' | 'running' | 'launched';

/**
 * In an enabled repo with no daemon, spawns one and returns at once. A daemon that holds its lock
 * (running, or still starting) is left alone; two sessions racing here start two, and the second
 * loses the daemon lock and exits.
 */
export async function startDaemonIfEnabled(root: string, env: Env): Promise<AutostartOutcome> {
  if (!(await isEnabled(root, env))) return 'not-enabled';
  if (await isDaemonRunning(root, env)) return 'running';
  // Sessions and logs stay local, as `ai-zen-daemon start` keeps them.
  await ensureGitignore(projectPaths(root), silentLogger());
  launchDaemon(root, env);
  return 'launched';
}

/**
 * The same for ai-zen's own sessions (the chat, `-p`): started alongside the session, so it never
 * delays it; never rejects (a daemon that cannot start is logged, and the session goes on). Await
 * it before the process exits so the spawn is not cut short.
 */
export function startDaemonAlongside(root: string, env: Env, logger: Logger): Promise<void> {
  return startDaemonIfEnabled(root, env).then(
    (outcome) => {
      if (outcome === 'launched') logger.info({ root }, 'enabled repo: daemon launched');
    },
    (error: unknown) => logger.warn({ err: error }, 'enabled repo: could not launch the daemon'),
  );
}
