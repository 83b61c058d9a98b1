// The daemon's one owner of its config: read at start, read again when the user's
// `$AI_ZEN_HOME/config.json` or the repo's `.ai-zen/config.json` changes (a watch on their folders).
// What is read at the time of use applies at once — the model and its endpoint, the executor,
// each agent's grace, deadline and idle handoff; what the daemon's parts took at start (commit,
// notifications, warnings, idle exit, each agent's thresholds and windows, which agents are
// watched) keeps its old value, and `note()` says "config changed: restart to apply". A file that
// does not parse leaves the config as it was, and `note()` says so; neither ever stops the daemon.
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AgentsConfig } from '../../config/agents-config.js';
import { type Config, loadConfig } from '../../config/load-config.js';
import { projectPaths, userConfigPath, type Env } from '../../paths.js';

export interface ConfigKeeper {
  /** The config in force: what applies now. */
  current(): Config;
  /** One line for `status` when the files say something the daemon does not apply; null: they agree. */
  note(): string | null;
  /** Reads the files again (the watch calls it; a test may too); resolves once applied. */
  reload(): Promise<void>;
  close(): void;
}

/** The fields of an agent's settings that are read each time they are used. */
const LIVE_AGENT_FIELDS = ['graceSeconds', 'selfDeadlineSeconds', 'idleHandoff'] as const;
/** The top-level fields read each time they are used (a handoff's executor, model and endpoint). */
const LIVE_FIELDS = [
  'model',
  'baseURL',
  'apiKey',
  'maxContextTokens',
  'modelConfigured',
  'executor',
  'execTimeoutMs',
  'execOutputLimit',
  'modelTimeoutMs',
  'agentMayMigrate',
  'trust',
  'ignored',
  'ignoredSettings',
  'sources',
  'refusedEndpoint',
  'files',
] as const satisfies readonly (keyof Config)[];

/** What applies of `read` to a daemon that started with `started`: the live fields from `read`, the rest as they were. */
export function appliedConfig(started: Config, read: Config): Config {
  const agents = Object.fromEntries(
    Object.entries(started.agents).map(([name, was]) => {
      const now = read.agents[name as keyof AgentsConfig];
      return [name, { ...was, ...Object.fromEntries(LIVE_AGENT_FIELDS.map((field) => [field, now[field]])) }];
    }),
  ) as unknown as AgentsConfig;
  return { ...started, ...Object.fromEntries(LIVE_FIELDS.map((field) => [field, read[field]])), agents } as Config;
}

/** The dotted names whose value in `read` is not what applies. */
export function waitingForRestart(applied: Config, read: Config): string[] {
  const names: string[] = [];
  for (const field of Object.keys(read.daemon) as (keyof Config['daemon'])[])
    if (JSON.stringify(read.daemon[field]) !== JSON.stringify(applied.daemon[field])) names.push(`daemon.${field}`);
  if (read.warnAt !== applied.warnAt) names.push('warnAt');
  for (const [name, now] of Object.entries(read.agents)) {
    const was = applied.agents[name as keyof AgentsConfig] as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(now))
      if (JSON.stringify(value) !== JSON.stringify(was[field])) names.push(`agents.${name}.${field}`);
  }
  return names;
}

export async function createConfigKeeper(options: { root: string; env: Env; logger: Logger; initial: Config }): Promise<ConfigKeeper> {
  const { root, env, logger } = options;
  const started = options.initial;
  let applied = started;
  let note: string | null = null;
  let running: Promise<void> = Promise.resolve();

  const readAgain = async (): Promise<void> => {
    let read: Config;
    try {
      read = await loadConfig({ root, env });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const line = `config not applied: ${message.split('\n')[0]} (the daemon keeps the config it had)`;
      if (line !== note) logger.warn({}, line);
      note = line;
      return;
    }
    const next = appliedConfig(started, read);
    const waiting = waitingForRestart(next, read);
    const nextNote = waiting.length === 0 ? null : `config changed: restart to apply (${waiting.join(', ')})`;
    if (JSON.stringify(next) !== JSON.stringify(applied)) logger.info({ files: read.files }, 'config changed: applied');
    if (nextNote !== null && nextNote !== note) logger.warn({}, nextNote);
    applied = next;
    note = nextNote;
  };
  // One read at a time, in order: the last write is what the last read sees.
  const reload = () => (running = running.then(readAgain, readAgain));

  const watchers: FSWatcher[] = [];
  for (const file of [userConfigPath(env), projectPaths(root).config]) {
    try {
      const watcher = watch(path.dirname(file), (_event, name) => {
        if (name === null || name === path.basename(file)) void reload();
      });
      watcher.on('error', (error) => logger.warn({ err: error }, `cannot watch ${file} for changes`));
      watchers.push(watcher);
    } catch (error) {
      // A folder not there yet (no user config folder): its config applies at the next start.
      logger.info({ err: error }, `not watching ${file}: its folder is not there`);
    }
  }
  return {
    current: () => applied,
    note: () => note,
    reload,
    close: () => {
      for (const watcher of watchers) watcher.close();
    },
  };
}
