// Where settings come from, in order of strength: the environment, then the project's
// `.ai-zen/config.json`, then the user's `$AI_ZEN_HOME/config.json`, then defaults.
import { promises as fs } from 'node:fs';
import type { z } from 'zod';
import { AiZenError } from '../errors.js';
import { readRegularFile } from '../fs/read-regular-file.js';
import { projectPaths, userConfigPath, type Env } from '../paths.js';
import type { ExecutorName } from '../session/format.js';
import { resolveAgentsConfig, type AgentsConfig } from './agents-config.js';
import { CONFIG_MAX_BYTES, ConfigFile } from './config-schema.js';
import { chooseSetting, type Candidate, type ConfigSource, type IgnoredSetting } from './config-sources.js';
import { defaultContextWindow } from './model-defaults.js';
import { allowsProjectChoices, checkTrust, TRUST_COMMAND, type TrustVerdict } from './trust.js';

export interface Config {
  readonly model: string;
  readonly baseURL: string | null;
  readonly apiKey: string | null;
  readonly maxContextTokens: number;
  /** An api key or a base URL is set: there is a model to talk to. */
  readonly modelConfigured: boolean;
  readonly executor: ExecutorName;
  readonly execTimeoutMs: number;
  readonly execOutputLimit: number;
  readonly modelTimeoutMs: number;
  readonly daemon: {
    /** Whether handoff documents are committed at all (`commit` is not `off`). */
    readonly autoCommit: boolean;
    /** Where they are committed: the branch checked out, a side ref, or nowhere. */
    readonly commit: CommitMode;
    /** The side ref of `commit: "ref"`. */
    readonly commitRef: string;
    readonly notifications: boolean;
    readonly warnings: boolean;
    /** Minutes with no live session and nothing pending before the daemon exits by itself; 0: never. */
    readonly idleExitMinutes: number;
  };
  /** Other agents' sessions (X3): thresholds and windows per agent. */
  readonly agents: AgentsConfig;
  /** S5: percent of the window at which ai-zen's own sessions warn. */
  readonly warnAt: number;
  /** S3: the model's handoff tool may migrate with nobody to ask (print mode). */
  readonly agentMayMigrate: boolean;
  /** The config files that were read (for the log). */
  readonly files: readonly string[];
  /** Whether the user trusts the project (T4): hooks, the project's endpoint, model and executor. */
  readonly trust: TrustVerdict;
  /** One line per project setting ignored because the project is not trusted (shown or logged). */
  readonly ignored: readonly string[];
  /** The same, one entry per setting (`ai-zen config`). */
  readonly ignoredSettings: readonly IgnoredSetting[];
  /** Where each value came from, by dotted name (`model`, `daemon.commit`, `agents.codex.handoffAt`). */
  readonly sources: Readonly<Record<string, ConfigSource>>;
  /**
   * T3: the untrusted project config names an endpoint. Nothing is sent anywhere then (no model is
   * configured); the CLI fails with this line, the daemon logs it and hands off offline.
   */
  readonly refusedEndpoint: string | null;
}

export type CommitMode = 'branch' | 'ref' | 'off';
/** Half an hour without a session: long enough for a break, short enough that a week's repos do not all stay resident. */
export const DEFAULT_IDLE_EXIT_MINUTES = 30;
/** Where `commit: "ref"` puts the documents: a branch of its own, so `git push origin ai-zen/handoffs` shares them. */
export const DEFAULT_COMMIT_REF = 'refs/heads/ai-zen/handoffs';

export const DEFAULT_MODEL = 'gpt-4o';
/** What only a trusted project config may set (T4). */
const PROJECT_CHOICES = ['model', 'executor', 'baseURL', 'agentMayMigrate'] as const;
/** S5: warn at 80% of the window unless the config says otherwise. */
export const DEFAULT_WARN_AT = 80;
export const DEFAULTS = {
  executor: 'self',
  execTimeoutMs: 120_000,
  execOutputLimit: 30_000,
  modelTimeoutMs: 60_000,
} as const;

export interface LoadConfigOptions {
  root: string;
  env?: Env;
  /** From the command line (`--model`); stronger than everything else. */
  overrides?: { model?: string };
}

export async function loadConfig({ root, env = process.env, overrides = {} }: LoadConfigOptions): Promise<Config> {
  const projectFile = projectPaths(root).config;
  const userFile = userConfigPath(env);
  const user = parseConfigFile(userFile, await readConfigBytes(userFile));
  // $HOME as the project (a dotfiles repo): the project's config IS the user's, read once, as the user's.
  // Read once: these bytes are both what applies and what trust judges (a symlinked
  // config was read through its link here while trust looked at the link and saw no config).
  const projectBytes = (await sameFile(projectFile, userFile)) ? null : await readConfigBytes(projectFile);
  const project = parseConfigFile(projectFile, projectBytes);
  if (project?.apiKey !== undefined) {
    throw new AiZenError(
      'config',
      `${projectFile}: apiKey: an api key does not belong in the project (it gets committed); set OPENAI_API_KEY or put it in ${userFile}`,
    );
  }
  const files = [user && userFile, project && projectFile].filter((file): file is string => typeof file === 'string');
  if (project?.agents?.['claude-code']?.command !== undefined) {
    throw new AiZenError(
      'config',
      `${projectFile}: agents.claude-code.command: the command the daemon runs does not belong in the project (a cloned repo would choose what runs); put it in ${userFile}`,
    );
  }
  const trust = await checkTrust(root, env, { projectConfig: projectBytes });
  // T4: an untrusted project may not choose where requests go, which model, which executor, nor
  // let the model migrate with nobody to ask.
  const untrustedProject = project !== null && !allowsProjectChoices(trust);
  const chosen = project && untrustedProject ? PROJECT_CHOICES.filter((field) => project[field] !== undefined) : [];
  // Nor which ref the daemon moves: a cloned repo's `commit: "ref"` moved the user's own branches and tags.
  const chosenRef = project && untrustedProject ? refChoices(project) : [];
  // The environment's endpoint wins over the project's anyway; then the project's is only ignored.
  const refusedURL = chosen.includes('baseURL') && nonEmpty(env.OPENAI_BASE_URL) === undefined ? (project?.baseURL ?? null) : null;
  const ignored = [...chosen.filter((field) => field !== 'baseURL' || refusedURL === null), ...chosenRef];
  const trusted: ConfigFile | null =
    (chosen.length > 0 || chosenRef.length > 0) && project
      ? {
          ...project,
          model: undefined,
          executor: undefined,
          baseURL: undefined,
          agentMayMigrate: undefined,
          ...(project.daemon ? { daemon: withoutRefChoices(project.daemon) } : {}),
        }
      : project;
  // Each value is chosen with where it came from (`ai-zen config` shows these sources).
  const sources: Record<string, ConfigSource> = {};
  const userSource: ConfigSource = { kind: 'user', file: userFile };
  const projectSource: ConfigSource = { kind: 'project', file: projectFile };
  /** The files' value: the (trusted part of the) project's over the user's, field by field. */
  const file = <T>(get: (config: ConfigFile) => T | undefined): Candidate<T> => {
    const fromProject = trusted ? get(trusted) : undefined;
    if (fromProject !== undefined) return [fromProject, projectSource];
    return [user ? get(user) : undefined, userSource];
  };
  const fromEnv = (variable: string): Candidate<string> => [nonEmpty(env[variable]), { kind: 'env', variable }];
  const choose = <T>(key: string, fallback: T, ...candidates: readonly Candidate<T>[]): T =>
    chooseSetting(sources, key, fallback, ...candidates);

  const envBaseURL = nonEmpty(env.OPENAI_BASE_URL);
  if (envBaseURL !== undefined && !isHttpUrl(envBaseURL)) {
    throw new AiZenError('config', `OPENAI_BASE_URL: not an http(s) URL: ${envBaseURL}`);
  }
  const model = choose<string>(
    'model',
    DEFAULT_MODEL,
    [nonEmpty(overrides.model), { kind: 'flag', flag: '--model' }],
    fromEnv('AI_ZEN_MODEL'),
    file((config) => config.model),
  );
  const apiKey = choose<string | null>(
    'apiKey',
    null,
    fromEnv('OPENAI_API_KEY'),
    file((config) => config.apiKey),
  );
  const baseURL = choose<string | null>(
    'baseURL',
    null,
    fromEnv('OPENAI_BASE_URL'),
    file((config) => config.baseURL),
  );
  const untrustedWhy = trust.state === 'changed' ? 'changed since you trusted it' : 'not trusted';
  const refusedEndpoint =
    refusedURL === null
      ? null
      : `${projectFile} chooses the endpoint ${refusedURL}, but this repo is ${untrustedWhy}: your API key and code are not sent there, and nothing is sent anywhere else instead (trust the repo with: ${TRUST_COMMAND})`;
  const [commitValue, commitSource] = file((config) => config.daemon?.commit);
  const [autoCommit, autoCommitSource] = file((config) => config.daemon?.autoCommit);
  // `commit` when set; else `autoCommit: false` is the older spelling of `off`.
  const commit = choose<CommitMode>(
    'daemon.commit',
    'branch',
    [commitValue, commitSource],
    [autoCommit === undefined ? undefined : autoCommit ? 'branch' : 'off', autoCommitSource],
  );
  return {
    model,
    baseURL,
    apiKey,
    maxContextTokens: choose(
      'maxContextTokens',
      defaultContextWindow(model),
      file((config) => config.maxContextTokens),
    ),
    modelConfigured: refusedEndpoint === null && (apiKey !== null || baseURL !== null),
    executor: choose<ExecutorName>(
      'executor',
      DEFAULTS.executor,
      file((config) => config.executor),
    ),
    execTimeoutMs: choose(
      'execTimeoutMs',
      DEFAULTS.execTimeoutMs,
      file((config) => config.execTimeoutMs),
    ),
    execOutputLimit: choose(
      'execOutputLimit',
      DEFAULTS.execOutputLimit,
      file((config) => config.execOutputLimit),
    ),
    modelTimeoutMs: choose(
      'modelTimeoutMs',
      DEFAULTS.modelTimeoutMs,
      file((config) => config.modelTimeoutMs),
    ),
    daemon: {
      commit,
      autoCommit: commit !== 'off',
      commitRef: choose(
        'daemon.commitRef',
        DEFAULT_COMMIT_REF,
        file((config) => config.daemon?.commitRef),
      ),
      notifications: choose(
        'daemon.notifications',
        true,
        file((config) => config.daemon?.notifications),
      ),
      warnings: choose(
        'daemon.warnings',
        true,
        file((config) => config.daemon?.warnings),
      ),
      idleExitMinutes: choose(
        'daemon.idleExitMinutes',
        DEFAULT_IDLE_EXIT_MINUTES,
        file((config) => config.daemon?.idleExitMinutes),
      ),
    },
    agents: resolveAgentsConfig(user?.agents, project?.agents, { sources, user: userSource, project: projectSource }),
    warnAt: choose(
      'warnAt',
      DEFAULT_WARN_AT,
      file((config) => config.warnAt),
    ),
    agentMayMigrate: choose(
      'agentMayMigrate',
      false,
      file((config) => config.agentMayMigrate),
    ),
    files,
    trust,
    ignored:
      ignored.length > 0
        ? [`${projectFile}: ${ignored.join(', ')} ignored: this repo is ${untrustedWhy} (trust it with: ${TRUST_COMMAND})`]
        : [],
    ignoredSettings: [...chosen, ...chosenRef].map((key) => ({ key, file: projectFile, reason: `this repo is ${untrustedWhy}` })),
    sources,
    refusedEndpoint,
  };
}

/** The project's choices of a side ref (`commit: "ref"`, `commitRef`): a trusted repo's, or the user's, only. */
function refChoices(project: ConfigFile): ('daemon.commit' | 'daemon.commitRef')[] {
  const choices: ('daemon.commit' | 'daemon.commitRef')[] = [];
  if (project.daemon?.commit === 'ref') choices.push('daemon.commit');
  if (project.daemon?.commitRef !== undefined) choices.push('daemon.commitRef');
  return choices;
}

function withoutRefChoices(daemon: NonNullable<ConfigFile['daemon']>): ConfigFile['daemon'] {
  return { ...daemon, commit: daemon.commit === 'ref' ? undefined : daemon.commit, commitRef: undefined };
}

/** Both paths name one file (same real path; false when either is missing). */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [left, right] = await Promise.all([fs.realpath(a).catch(() => null), fs.realpath(b).catch(() => null)]);
  return left !== null && left === right;
}

/** Reads and validates one config file; null when it does not exist. */
export async function readConfigFile(file: string): Promise<ConfigFile | null> {
  return parseConfigFile(file, await readConfigBytes(file));
}

/**
 * A config file's bytes (through a symlink, as any reader would), null when there is none; one
 * clear line when it is not a regular file of sane size (a FIFO would hang us, /dev/zero fill memory).
 */
async function readConfigBytes(file: string): Promise<Buffer | null> {
  const read = await readRegularFile(file, CONFIG_MAX_BYTES);
  if (read.ok) return read.bytes;
  if (read.missing) return null;
  throw new AiZenError('config', `${file}: ${read.reason}`);
}

function parseConfigFile(file: string, bytes: Buffer | null): ConfigFile | null {
  if (bytes === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new AiZenError('config', `${file}: not valid JSON (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  const parsed = ConfigFile.safeParse(data);
  if (!parsed.success) throw new AiZenError('config', `${file}: ${describeIssue(parsed.error.issues[0])}`, { cause: parsed.error });
  return parsed.data;
}

/** `field: what is wrong`, for the first issue zod found. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid';
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => (field ? `${field}.${key}` : key));
    return `${keys.join(', ')}: unknown field${keys.length > 1 ? 's' : ''}`;
  }
  return `${field || '(top level)'}: ${issue.message}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
