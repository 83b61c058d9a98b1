// `ai-zen-daemon uninstall [--all]`: undoes what ai-zen did for this repo — its daemon stopped; every
// agent's hooks, pi's extension entry, Claude Code's MCP server, statusline and approvals taken out
// (each agent's own uninstall, which leaves the user's entries alone); each file put back as the user
// had it, or removed with its folders when ai-zen created it (install-ledger.ts); its git exclude
// lines, enable and trust records gone; the login service when no enabled repo is left. `--all`: that
// for every repo ai-zen knows of, then the user-wide pieces (Codex's hooks, MCP server and trust, the
// hook shim, pi's extension, opencode's and Kilo's plugin, the service, ai-zen's records).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { trustedRoots, untrustProject } from '../../config/trust.js';
import type { AgentHooks } from '../../daemon/sources/agent-hooks.js';
import { AGENT_MODULES } from '../../daemon/sources/index.js';
import { aiZenHome, type Env, hookShimPath } from '../../paths.js';
import { daemonRoot, isDaemonRunning } from '../shared/daemon-client.js';
import { readEnabled, setEnabled } from '../shared/enabled-repos.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { forgetExcludes } from './git-exclude.js';
import { forgetHookFiles, readInstalledHooks } from './installed-hooks-record.js';
import { forgetRepo, ledgerFilesOf, ledgerRepos, type PutBack, putBack } from './install-ledger.js';
import { listDaemons } from './ls.js';
import { markUninstalled } from './uninstalled-repos.js';
import { serviceState, servicePlatform, uninstallService } from './service.js';
import { stopOne } from './stop.js';

const AGENTS = AGENT_MODULES.flatMap((agent) => (agent.hooks ? [{ word: agent.word, hooks: agent.hooks }] : []));
const REPO_AGENTS = AGENTS.filter(({ hooks }) => hooks.scope === 'repo');
const USER_AGENTS = AGENTS.filter(({ hooks }) => hooks.scope === 'user');

export function registerUninstallCommand(program: Command, setup: CliSetup): void {
  program
    .command('uninstall')
    .option('--all', 'for every repo ai-zen knows of, and the user-wide pieces (Codex, the hook shim, the service, its records)')
    .description(
      'undo everything ai-zen did for this repo: hooks, extension, MCP server, statusline of every agent, its files, records and daemon',
    )
    .action(async (flags: { all?: boolean }) => {
      const { io } = setup;
      const say = (lines: readonly string[]) => (lines.length === 0 ? Promise.resolve() : writeOut(io.stdout, `${lines.join('\n')}\n`));
      if (!flags.all) {
        const root = await daemonRoot(io.cwd, io.env);
        await uninstallRepo(root, setup, say);
        await uninstallServiceIfUnused(setup, say);
        const userWide = await userWidePieces(io.env);
        if (userWide.length > 0)
          await say([`  left for every other repo: ${userWide.join(', ')} (ai-zen-daemon uninstall --all removes them)`]);
        return;
      }
      for (const daemon of await listDaemons(io.env)) await stopOne(daemon.repo, io, true);
      for (const root of await knownRepos(io.env)) await uninstallRepo(root, setup, say);
      await uninstallUser(setup, say);
    });
}

type Say = (lines: readonly string[]) => Promise<void>;

async function uninstallRepo(root: string, setup: CliSetup, say: Say): Promise<void> {
  const { env } = setup.io;
  const present = (await fs.stat(root).catch(() => null))?.isDirectory() === true;
  await say([`ai-zen-daemon: uninstalling ai-zen from ${root}${present ? '' : ' (gone: only its records)'}`]);
  if (!present) {
    await forgetRepo(env, root);
  } else {
    if (await isDaemonRunning(root, env)) await stopOne(root, setup.io, true);
    for (const { word, hooks } of REPO_AGENTS) {
      const removed = await removeOurs(root, env, hooks);
      if (removed.length > 0) await say([`  ${word}: ${removed.join(', ')} removed`]);
    }
    await forgetExcludes(root, env);
    for (const file of await ledgerFilesOf(env, root)) await sayPutBack(say, root, file, await putBack(env, file));
  }
  const lines: string[] = [];
  if (await setEnabled(root, false, env)) lines.push('  disabled: no session start brings its daemon up');
  if (await untrustProject(root, env)) lines.push('  its trust record removed');
  // A hook that still runs here (Codex's user-wide ones, until uninstall --all) says nothing from now on.
  await markUninstalled(env, root, true);
  await say(lines);
}

/** The agent's pieces in the repo (or the user's files), each by the agent's own uninstall; what went. */
async function removeOurs(root: string, env: Env, hooks: AgentHooks): Promise<string[]> {
  const removed: string[] = [];
  // An agent none of whose files is there has nothing of ours (and its uninstall would make their folders).
  const files = [...hooks.settingsFiles({ root, env }).map((place) => place.file), ...(hooks.mcp ? [hooks.mcp.file({ root, env })] : [])];
  if (!(await Promise.all(files.map(exists))).some(Boolean)) return removed;
  if (hooks.mcp && (await hooks.mcp.uninstall({ root, env })).changed) removed.push('MCP server');
  if ((await hooks.uninstall({ root, env })).changed) removed.push('hooks');
  if (hooks.statusLine && (await hooks.statusLine.uninstall({ root, env })).changed) removed.push('statusline');
  await forgetHookFiles(
    env,
    hooks.settingsFiles({ root, env }).map((place) => place.file),
  );
  return removed;
}

async function sayPutBack(say: Say, root: string, file: string, outcome: PutBack): Promise<void> {
  const shown = root !== '' && file.startsWith(`${root}${path.sep}`) ? path.relative(root, file) : file;
  if (outcome === 'restored') await say([`  ${shown}: put back as you had it`]);
  if (outcome === 'removed') await say([`  ${shown}: removed (ai-zen had created it)`]);
  if (outcome === 'kept') await say([`  ${shown}: ai-zen's entries are out; your changes since are kept`]);
}

/** The login service starts enabled repos: with none left (and no enable --global) it has nothing to do. */
async function uninstallServiceIfUnused(setup: CliSetup, say: Say): Promise<void> {
  const enabled = await readEnabled(setup.io.env).catch(() => null);
  if (enabled === null || enabled.global || enabled.repos.length > 0) return;
  await uninstallServiceIfThere(setup, say);
}

async function uninstallServiceIfThere(setup: CliSetup, say: Say): Promise<void> {
  let platform: ReturnType<typeof servicePlatform>;
  try {
    platform = servicePlatform(undefined);
  } catch {
    return;
  }
  const state = await serviceState(platform, setup.io.env);
  if (state !== 'current' && state !== 'outdated') return;
  await say(['  the login service started only the repos ai-zen no longer protects:']);
  await uninstallService(setup, platform, false, false);
}

/** The user-wide pieces ai-zen installed, as a per-repo uninstall leaves them. */
async function userWidePieces(env: Env): Promise<string[]> {
  const pieces: string[] = [];
  for (const { word, hooks } of USER_AGENTS) {
    const files = hooks.settingsFiles({ root: null, env });
    const record = await readInstalledHooks(env);
    if (files.some((place) => (record?.files[place.file]?.length ?? 0) > 0)) pieces.push(`${word}'s hooks (${files[0]!.file})`);
  }
  if (await exists(hookShimPath(env))) pieces.push(`the hook shim (${hookShimPath(env)})`);
  return pieces;
}

/**
 * Every repo ai-zen did something for: noted files, enable, trust, and the repos whose settings the
 * hook record names (found by the agent's own file name at the end of the path).
 */
async function knownRepos(env: Env): Promise<string[]> {
  const repos = new Set<string>([...(await ledgerRepos(env)), ...(await trustedRoots(env))]);
  for (const repo of (await readEnabled(env).catch(() => null))?.repos ?? []) repos.add(repo);
  const probe = path.join(path.sep, 'probe-root');
  for (const file of Object.keys((await readInstalledHooks(env))?.files ?? {}))
    for (const { hooks } of REPO_AGENTS)
      for (const place of hooks.settingsFiles({ root: probe, env })) {
        const name = path.relative(probe, place.file);
        if (file.endsWith(`${path.sep}${name}`)) repos.add(file.slice(0, -name.length - 1));
      }
  return [...repos].sort();
}

async function uninstallUser(setup: CliSetup, say: Say): Promise<void> {
  const { env, cwd } = setup.io;
  await say(['ai-zen-daemon: uninstalling the user-wide pieces']);
  for (const { word, hooks } of USER_AGENTS) {
    const removed = await removeOurs(cwd, env, hooks);
    if (removed.length > 0) await say([`  ${word}: ${removed.join(', ')} removed`]);
  }
  for (const file of await ledgerFilesOf(env, null)) await sayPutBack(say, '', file, await putBack(env, file));
  if (await setEnabled(null, false, env)) await say(['  enable --global turned off']);
  await uninstallServiceIfThere(setup, say);
  // ai-zen's own records and programs in its home; what the user wrote there (config.json) and what it
  // learned and logged stay, named below.
  const home = aiZenHome(env);
  const gone: string[] = [];
  const programs = ['pi', 'opencode', 'kilo'].map((folder) => path.join(home, folder));
  for (const file of [hookShimPath(env), ...programs, path.join(home, 'installed-hooks.json'), path.join(home, 'enabled.json')])
    if (await exists(file)) {
      await fs.rm(file, { recursive: true, force: true });
      gone.push(file);
    }
  for (const folder of [
    path.dirname(hookShimPath(env)),
    path.join(home, 'trust'),
    ...AGENTS.map(({ word }) => path.join(home, `${word}-rules`)),
  ])
    await fs.rmdir(folder).catch(() => {});
  if (gone.length > 0) await say(gone.map((file) => `  removed ${file}`));
  await say([`  kept: ${home} (your config.json, what ai-zen learned, its logs and handoff records): remove it yourself to drop them`]);
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );
