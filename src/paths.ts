// The one place that knows where ai-zen keeps things. Nothing else calls os.homedir()
// or builds a `.ai-zen/...` path by hand, so AI_ZEN_HOME relocates everything (tests rely on it).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Env = Readonly<Record<string, string | undefined>>;

/** `$AI_ZEN_HOME`, else `~/.ai-zen`. */
export function aiZenHome(env: Env = process.env): string {
  const fromEnv = env.AI_ZEN_HOME;
  return fromEnv && fromEnv.length > 0 ? path.resolve(fromEnv) : path.join(homeFolder(env), '.ai-zen');
}

/** `${CODEX_HOME:-~/.codex}`: Codex's own folder (config.toml, hooks.json, sessions/). */
export function codexHomeFolder(env: Env = process.env): string {
  const fromEnv = env.CODEX_HOME;
  return fromEnv && fromEnv.length > 0 ? path.resolve(fromEnv) : path.join(homeFolder(env), '.codex');
}

/** Codex CLI's rollouts (X3): `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
export function codexSessionsFolder(env: Env = process.env): string {
  return path.join(codexHomeFolder(env), 'sessions');
}

export function userConfigPath(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'config.json');
}

/**
 * The user's private folder of locks and daemon sockets (0700, made by lock/ on first use). Under
 * AI_ZEN_HOME, not TMPDIR or XDG_RUNTIME_DIR: a daemon started from a systemd unit and a client in
 * an ssh shell must meet at the same place.
 */
export function runFolder(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'run');
}

/**
 * The command every agent's hook runs: a small script at a place that does not move,
 * which runs whichever ai-zen installed it last. The agents' settings name this, never a checkout.
 */
export function hookShimPath(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'bin', 'ai-zen-daemon');
}

export function userSkillPath(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'skills', 'handoff', 'SKILL.md');
}

let root: string | undefined;

/**
 * The installed package's root (holds `skills/`, `hooks/`): the nearest folder above this module
 * with a package.json. This module may be src/paths.ts, dist/paths.js or a bundled chunk in dist/cli/
 * (rolldown.config.ts), so no fixed number of levels up is right for all of them.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let folder = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(folder, 'package.json')) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  root = folder;
  return root;
}

export function bundledSkillPath(): string {
  return path.join(packageRoot(), 'skills', 'handoff', 'SKILL.md');
}

/** pi's extension as the package ships it (a program pi loads); install-hooks pi copies it with its commands filled in. */
export function bundledPiExtensionPath(): string {
  return path.join(packageRoot(), 'hooks', 'pi', 'ai-zen-hooks.ts');
}

/** opencode's plugin as the package ships it (Kilo Code's too); install-hooks copies it with its commands and its client's name filled in. */
export function bundledOpencodePluginPath(): string {
  return path.join(packageRoot(), 'hooks', 'opencode', 'ai-zen-hooks.js');
}

export interface ProjectPaths {
  readonly root: string;
  readonly aiZen: string;
  readonly sessions: string;
  readonly handoffs: string;
  /** The briefs an agent reads before it writes its own handoff document (daemon/handoffs/handoff-brief.ts). */
  readonly briefs: string;
  readonly logs: string;
  readonly hooks: string;
  readonly config: string;
  readonly projectSkill: string;
  /** Which session `--continue` opens; replaced atomically on migration (R25). */
  readonly latestPointer: string;
}

export function projectPaths(root: string): ProjectPaths {
  const aiZen = path.join(root, '.ai-zen');
  return {
    root,
    aiZen,
    sessions: path.join(aiZen, 'sessions'),
    handoffs: path.join(aiZen, 'handoffs'),
    briefs: path.join(aiZen, 'briefs'),
    logs: path.join(aiZen, 'logs'),
    hooks: path.join(aiZen, 'hooks'),
    config: path.join(aiZen, 'config.json'),
    projectSkill: path.join(aiZen, 'skills', 'handoff', 'SKILL.md'),
    latestPointer: path.join(aiZen, 'latest-session.json'),
  };
}

/**
 * The one path-containment test: true when `candidate` is `root` or below it. Both must already be
 * absolute (and real, when symlinks matter: resolving them is the caller's job, see fs/confine.ts).
 * A child named `..foo` is inside; only `..` itself or `../…` is out.
 */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * The user's home folder: `$HOME` as `env` says it (a command run in-process has its own env), else
 * the process's. Documents name it `~`.
 */
export function homeFolder(env: Env = process.env): string {
  // node:os loaded only here: every hook and statusline run names its socket from this module.
  return env.HOME && env.HOME.length > 0 ? env.HOME : process.getBuiltinModule('node:os').homedir();
}

/** An XDG base folder: `$<variable>` when absolute (the spec ignores a relative one), else `<home>/<underHome>`. */
export function xdgFolder(env: Env, variable: 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME', underHome: string): string {
  const named = env[variable];
  return named && path.isAbsolute(named) ? named : path.join(homeFolder(env), underHome);
}
