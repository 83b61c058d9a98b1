// `ai-zen-daemon install-hooks <agent>` / `uninstall-hooks <agent>`: ai-zen's hooks in the agent's
// settings and each capability the agent's hooks have (agent-hooks.ts: an MCP entry, a statusline,
// a trust step), for every agent of the list alike; the command those hooks run is hook.ts.
import path from 'node:path';
import type { Command } from 'commander';
import type { AgentHooks, HookEvent, StatusLineInstall } from '../../daemon/sources/agent-hooks.js';
import { AGENT_MODULES, agentModule } from '../../daemon/sources/index.js';
import { AiZenError } from '../../errors.js';
import { type Env, homeFolder } from '../../paths.js';
import { daemonRoot } from '../shared/daemon-client.js';
import { packageVersion } from '../shared/package-version.js';
import { recordInstalledHooks } from './doctor-hooks.js';
import { excludeFileOf, keepOutOfGit } from './git-exclude.js';
import { rememberBefore } from './install-ledger.js';
import { markUninstalled } from './uninstalled-repos.js';
import { HOOK_AGENTS } from './hook-answer.js';
import { ensureHookShim, shellWord } from './hook-shim.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

/** The hooks of the agent a person named (`install-hooks gemini`), or the one clear line. */
function hooksOf(word: string): AgentHooks {
  const hooks = agentModule(word)?.hooks;
  if (!HOOK_AGENTS.includes(word) || !hooks)
    throw new AiZenError('usage', `unknown agent ${JSON.stringify(word)} (known: ${HOOK_AGENTS.join(', ')})`);
  return hooks;
}

/** The agents whose hooks ai-zen can trust for the person (`--trust`). */
const TRUSTING = AGENT_MODULES.flatMap((agent) => (agent.hooks?.trust ? [{ word: agent.word, trust: agent.hooks.trust }] : []));

/**
 * The command a hook runs: the stable shim under $AI_ZEN_HOME (hook-shim.ts), never this checkout's
 * path, so a moved or upgraded ai-zen leaves every repo's hooks working.
 */
function hookCommand(shim: string, agent: string, event: HookEvent): string {
  return `${shellWord(shim)} hook ${agent} ${event}`;
}

/** The repo's root for a repo's hooks; a user-wide agent's hooks install from anywhere (the command's folder). */
async function rootFor(hooks: AgentHooks, setup: CliSetup): Promise<string> {
  return hooks.scope === 'repo' ? daemonRoot(setup.io.cwd, setup.io.env) : setup.io.cwd;
}

/** A file as messages name it: relative when it is a repo's own file, else its whole path. */
function shownFile(root: string, file: string, hooks: AgentHooks): string {
  const relative = path.relative(root, file);
  return hooks.scope === 'repo' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** A file as messages name it, kept out of git when it is a repo's own file (it names this machine's paths). */
async function place(
  root: string,
  file: string,
  hooks: AgentHooks,
  env: Env,
): Promise<{ where: string; kept: 'excluded' | 'tracked' | null }> {
  const where = shownFile(root, file, hooks);
  if (where === file) return { where, kept: null };
  const kept = await keepOutOfGit(root, where, env);
  return { where, kept: kept === 'excluded' || kept === 'tracked' ? kept : null };
}

export function registerAgentHookCommands(program: Command, setup: CliSetup): void {
  program
    .command('install-hooks')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .option('--trust', TRUSTING.map(({ word, trust }) => `${word}: ${trust.option}`).join('; '))
    .description(
      "add ai-zen's hooks to the agent's settings, in its own names: a turn's end, a compaction, a session's start, and for Gemini a prompt (pi: its extension; Cline: its PostToolUse)",
    )
    .action(async (agent: string, flags: { trust?: boolean }) => {
      const hooks = hooksOf(agent);
      if (flags.trust && !hooks.trust) throw new AiZenError('usage', `--trust is for ${TRUSTING.map(({ word }) => word).join(', ')}`);
      await install(setup, agent, hooks, flags.trust === true);
    });
  program
    .command('uninstall-hooks')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .description("remove ai-zen's hooks (and only those) from the agent's settings")
    .action(async (agent: string) => {
      const hooks = hooksOf(agent);
      const root = await rootFor(hooks, setup);
      const env = setup.io.env;
      const shown = (file: string) => shownFile(root, file, hooks);
      const lines: string[] = [];
      const mcp = hooks.mcp ? await hooks.mcp.uninstall({ root, env }) : null;
      if (mcp?.changed) lines.push(`ai-zen-daemon: the MCP server ai-zen removed from ${shown(mcp.file)}`);
      const result = await hooks.uninstall({ root, env });
      await recordInstalledHooks(hooks.settingsFiles({ root, env }), env);
      lines.push(
        result.changed
          ? `ai-zen-daemon: ai-zen's hooks removed from ${shown(result.file)}`
          : `ai-zen-daemon: no ai-zen hooks in ${shown(result.file)}`,
      );
      const statusLine = hooks.statusLine ? await hooks.statusLine.uninstall({ root, env }) : null;
      if (statusLine?.changed) lines.push(`ai-zen-daemon: ai-zen's statusline removed from ${shown(statusLine.file)}`);
      await writeOut(setup.io.stdout, `${lines.join('\n')}\n`);
    });
}

/**
 * Notes the files install may write as they are before it does (install-ledger.ts): the settings, the
 * MCP entry's file, and a repo's git exclude file, so `uninstall` can put each back as the user had it.
 */
async function noteFilesBefore(root: string, hooks: AgentHooks, env: Env): Promise<void> {
  const inRepo = hooks.scope === 'repo';
  const within = inRepo ? root : homeFolder(env);
  const files = hooks.settingsFiles({ root, env }).flatMap((place) => (place.shared ? [] : [place.file]));
  if (hooks.mcp) files.push(hooks.mcp.file({ root, env }));
  const exclude = inRepo ? await excludeFileOf(root, env) : null;
  if (exclude !== null) files.push(exclude);
  await rememberBefore(
    env,
    inRepo ? root : null,
    [...new Set(files)].map((file) => ({ file, within })),
  );
}

/** install-hooks <agent>: the hooks, then each capability the agent has (its MCP entry, its statusline, its trust). */
async function install(setup: CliSetup, word: string, hooks: AgentHooks, trust: boolean): Promise<void> {
  const env = setup.io.env;
  const root = await rootFor(hooks, setup);
  const shim = await ensureHookShim(env);
  await noteFilesBefore(root, hooks, env);
  await markUninstalled(env, root, false);
  const result = await hooks.install({ root, env, command: (event) => hookCommand(shim, word, event) });
  await recordInstalledHooks(hooks.settingsFiles({ root, env }), env);
  const { where, kept } = await place(root, result.file, hooks, env);
  // Each step says what it did as soon as it is done: a later step that fails leaves the earlier ones told.
  const say = (lines: readonly string[]) => (lines.length === 0 ? Promise.resolve() : writeOut(setup.io.stdout, `${lines.join('\n')}\n`));
  await say([
    result.changed ? `ai-zen-daemon: hooks installed in ${where}${result.what}` : `ai-zen-daemon: hooks already installed in ${where}`,
    ...(kept === 'excluded' ? [`  ${where} is kept out of git (.git/info/exclude)`] : []),
    ...(kept === 'tracked'
      ? [`  note: ${where} is tracked by git; its hooks name this machine's paths — consider git rm --cached ${where}`]
      : []),
    ...result.notes,
  ]);
  if (hooks.mcp) {
    // The successor's way back to its predecessors, started through the same shim.
    const mcp = await hooks.mcp.install({ root, env, shim });
    if (mcp.taken)
      await say([
        `  note: ${shownFile(root, mcp.file, hooks)} already has an MCP server named ai-zen of yours: ai-zen-daemon mcp is not added`,
      ]);
    else {
      const placed = await place(root, mcp.file, hooks, env);
      await say([
        `  MCP server ai-zen (ai-zen-daemon mcp: handoffs, read_handoff, search_history, read_message) in ${placed.where}${mcp.changed ? '' : ', already there'}`,
        ...(placed.kept === 'excluded' ? [`  ${placed.where} is kept out of git (.git/info/exclude)`] : []),
        ...(placed.kept === 'tracked'
          ? [`  note: ${placed.where} is tracked by git; the ai-zen server in it names this machine's paths`]
          : []),
      ]);
    }
  }
  if (hooks.statusLine) {
    const statusLine = await hooks.statusLine.install({ root, env, command: `${shellWord(shim)} statusline` });
    await say([statusLineNote(statusLine, shim, hooks.statusLine.shows)]);
  }
  if (hooks.trust)
    await say([
      trust ? `ai-zen-daemon: ${await hooks.trust.trust({ cwd: setup.io.cwd, env, version: packageVersion() })}` : hooks.trust.hint,
    ]);
}

/** What install-hooks says of the statusline: installed, or the user's left as it is and how to chain it. */
function statusLineNote(result: StatusLineInstall, shim: string, shows: string): string {
  if (result.state === 'installed') return `ai-zen-daemon: statusline installed in ${result.file} (${shows})`;
  if (result.state !== 'theirs') return `ai-zen-daemon: statusline already installed in ${result.file}`;
  if (result.chained) return `ai-zen-daemon: your statusline in ${result.file} already shows ai-zen's line (--chain)`;
  return (
    `ai-zen-daemon: your statusline in ${result.file} is left as it is; to show ai-zen's line after it, set its command to:\n` +
    `  ${shellWord(shim)} statusline --chain ${shellWord(result.command)}`
  );
}
