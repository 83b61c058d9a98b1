// `ai-zen-daemon install-hooks claude` / `uninstall-hooks claude` (X3, issue 10 §5): ai-zen's hooks
// in the project's `.claude/settings.local.json`, and `ai-zen-daemon hook claude <event>`, the
// command those hooks run. A hook never breaks the agent: without a daemon, or on any error at all,
// it prints nothing and exits 0.
import path from 'node:path';
import type { Command } from 'commander';
import {
  HANDOFF_PERMISSION,
  installClaudeHooks,
  uninstallClaudeHooks,
  type ClaudeHookEvent,
} from '../daemon/sources/claude-code/claude-settings.js';
import { installClaudeMcp, MCP_FILE, uninstallClaudeMcp } from '../daemon/sources/claude-code/claude-mcp.js';
import {
  installClaudeStatusLine,
  type StatusLineInstall,
  uninstallClaudeStatusLine,
} from '../daemon/sources/claude-code/claude-statusline.js';
import { trustOurCodexHooks } from '../daemon/sources/codex/codex-hook-trust.js';
import { installCodexHooks, uninstallCodexHooks, type CodexHookEvent } from '../daemon/sources/codex/codex-hooks.js';
import { installCodexMcp, uninstallCodexMcp } from '../daemon/sources/codex/codex-mcp.js';
import type { AgentHooks, HookEvent } from '../daemon/sources/agent-module.js';
import { agentModule } from '../daemon/sources/index.js';
import { AiZenError } from '../errors.js';
import { daemonRoot } from './daemon-client.js';
import { packageVersion } from './package-version.js';
import { setEnabled } from './enabled-repos.js';
import { keepOutOfGit } from './git-exclude.js';
import { answerHookQuietly, HOOK_AGENTS } from './hook-answer.js';
import { ensureHookShim, shellWord } from './hook-shim.js';
import { writeOut, type CliSetup } from './run-cli.js';

function checkAgent(agent: string): void {
  if (!HOOK_AGENTS.includes(agent))
    throw new AiZenError('usage', `unknown agent ${JSON.stringify(agent)} (known: ${HOOK_AGENTS.join(', ')})`);
}

/**
 * The command a hook runs: the stable shim under $AI_ZEN_HOME (hook-shim.ts), never this checkout's
 * path, so a moved or upgraded ai-zen leaves every repo's hooks working (issue 20 §5).
 */
function hookCommand(shim: string, agent: string, event: ClaudeHookEvent | CodexHookEvent | HookEvent): string {
  return `${shellWord(shim)} hook ${agent} ${event}`;
}

export function registerAgentHookCommands(program: Command, setup: CliSetup): void {
  program
    .command('install-hooks')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .option('--trust', "codex: trust ai-zen's hooks (and only those) through Codex's own app-server, as /hooks in Codex would")
    .description("add ai-zen's hooks (Stop, PreCompact, SessionStart) to the agent's settings")
    .action(async (agent: string, flags: { trust?: boolean }) => {
      checkAgent(agent);
      const generic = agentModule(agent)?.hooks;
      if (agent !== 'claude' && agent !== 'codex' && generic) {
        if (flags.trust) throw new AiZenError('usage', '--trust is for codex');
        await installGeneric(setup, agent, generic);
        return;
      }
      if (agent === 'codex') {
        await installForCodex(setup, flags.trust === true);
        return;
      }
      if (flags.trust) throw new AiZenError('usage', '--trust is for codex (Claude Code runs the hooks of its settings as they are)');
      const root = await daemonRoot(setup.io.cwd, setup.io.env);
      const shim = await ensureHookShim(setup.io.env);
      const result = await installClaudeHooks(root, (event) => hookCommand(shim, 'claude', event), setup.io.env);
      const where = path.relative(root, result.file);
      const kept = await keepOutOfGit(root, where, setup.io.env);
      // Issue 23 §3: the successor's way back to its predecessors, started through the same shim.
      const mcp = await installClaudeMcp(root, shim, setup.io.env);
      const mcpKept = mcp.taken ? null : await keepOutOfGit(root, MCP_FILE, setup.io.env);
      await writeOut(
        setup.io.stdout,
        (result.changed
          ? `ai-zen-daemon: hooks installed in ${where} (Stop, PreCompact, SessionStart), and the permission rule ${HANDOFF_PERMISSION} so Claude Code may write its handoff document there\n`
          : `ai-zen-daemon: hooks already installed in ${where}\n`) +
          (kept === 'excluded' ? `  ${where} is kept out of git (.git/info/exclude)\n` : '') +
          (kept === 'tracked'
            ? `  note: ${where} is tracked by git; its hooks name this machine's paths — consider git rm --cached ${where}\n`
            : '') +
          (mcp.taken
            ? `  note: ${MCP_FILE} already has an MCP server named ai-zen of yours: ai-zen-daemon mcp is not added\n`
            : `  MCP server ai-zen (ai-zen-daemon mcp: handoffs, read_handoff, search_history, read_message) in ${MCP_FILE}${mcp.changed ? '' : ', already there'}\n`) +
          (mcpKept === 'excluded' ? `  ${MCP_FILE} is kept out of git (.git/info/exclude)\n` : '') +
          (mcpKept === 'tracked' ? `  note: ${MCP_FILE} is tracked by git; the ai-zen server in it names this machine's paths\n` : ''),
      );
      await writeOut(
        setup.io.stdout,
        statusLineNote(await installClaudeStatusLine(root, `${shellWord(shim)} statusline`, setup.io.env), shim),
      );
    });
  program
    .command('uninstall-hooks')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .description("remove ai-zen's hooks (and only those) from the agent's settings")
    .action(async (agent: string) => {
      checkAgent(agent);
      const generic = agentModule(agent)?.hooks;
      if (agent !== 'claude' && agent !== 'codex' && generic) {
        const root = await daemonRoot(setup.io.cwd, setup.io.env);
        const result = await generic.uninstall({ root, env: setup.io.env });
        await writeOut(
          setup.io.stdout,
          result.changed
            ? `ai-zen-daemon: ai-zen's hooks removed from ${result.file}\n`
            : `ai-zen-daemon: no ai-zen hooks in ${result.file}\n`,
        );
        return;
      }
      if (agent === 'codex') {
        const mcp = await uninstallCodexMcp(setup.io.env);
        if (mcp.changed) await writeOut(setup.io.stdout, `ai-zen-daemon: the MCP server ai-zen removed from ${mcp.file}\n`);
        const result = await uninstallCodexHooks(setup.io.env);
        await writeOut(
          setup.io.stdout,
          result.changed
            ? `ai-zen-daemon: ai-zen's hooks removed from ${result.file}\n`
            : `ai-zen-daemon: no ai-zen hooks in ${result.file}\n`,
        );
        return;
      }
      const root = await daemonRoot(setup.io.cwd, setup.io.env);
      const mcp = await uninstallClaudeMcp(root, setup.io.env);
      if (mcp.changed) await writeOut(setup.io.stdout, `ai-zen-daemon: the MCP server ai-zen removed from ${MCP_FILE}\n`);
      const result = await uninstallClaudeHooks(root, setup.io.env);
      const where = path.relative(root, result.file);
      await writeOut(
        setup.io.stdout,
        result.changed ? `ai-zen-daemon: ai-zen's hooks removed from ${where}\n` : `ai-zen-daemon: no ai-zen hooks in ${where}\n`,
      );
      const statusLine = await uninstallClaudeStatusLine(root, setup.io.env);
      if (statusLine.changed) await writeOut(setup.io.stdout, `ai-zen-daemon: ai-zen's statusline removed from ${where}\n`);
    });
  for (const on of [true, false])
    program
      .command(on ? 'enable' : 'disable')
      .option('--global', 'every repo, not just this one')
      .description(
        on
          ? "an agent's session start in this repo (--global: any repo) brings its daemon up when none runs"
          : 'undo enable (this repo, or with --global the every-repo setting)',
      )
      .action(async (flags: { global?: boolean }) => {
        const root = flags.global ? null : await daemonRoot(setup.io.cwd, setup.io.env);
        if (on) await ensureHookShim(setup.io.env);
        const changed = await setEnabled(root, on, setup.io.env);
        const what = root ?? 'every repo';
        await writeOut(
          setup.io.stdout,
          `ai-zen-daemon: ${changed ? '' : 'already '}${on ? 'enabled' : 'disabled'} for ${what}${on ? " — an agent's session start brings the daemon up (with ai-zen's hooks installed: install-hooks claude|codex)" : ''}\n`,
        );
      });
  program
    .command('hook')
    .argument('<agent>', HOOK_AGENTS.join(' | '))
    .argument('<event>', 'Stop | PreCompact | SessionStart')
    .description('run by the agent as its hook (reads the hook JSON on stdin); never fails the agent')
    .action(async (agent: string, event: string) => {
      // The shim runs the lean entry (ai-zen-hook.ts) for this; here for `ai-zen-daemon hook` typed or run directly.
      const output = await answerHookQuietly(agent, event, setup.io);
      if (output) await writeOut(setup.io.stdout, `${JSON.stringify(output)}\n`).catch(() => {});
    });
}

/** What install-hooks claude says of the statusline (issue 23 §2): installed, or the user's left as it is and how to chain it. */
function statusLineNote(result: StatusLineInstall, shim: string): string {
  if (result.state === 'installed')
    return `ai-zen-daemon: statusline installed in ${result.file} (context %, where ai-zen hands off, where Claude compacts, the last document)\n`;
  if (result.state !== 'theirs') return `ai-zen-daemon: statusline already installed in ${result.file}\n`;
  if (result.chained) return `ai-zen-daemon: your statusline in ${result.file} already shows ai-zen's line (--chain)\n`;
  return (
    `ai-zen-daemon: your statusline in ${result.file} is left as it is; to show ai-zen's line after it, set its command to:\n` +
    `  ${shellWord(shim)} statusline --chain ${shellWord(result.command)}\n`
  );
}

/** install-hooks <agent> for an agent whose module brings its hooks (issue 24). */
async function installGeneric(setup: CliSetup, word: string, hooks: AgentHooks): Promise<void> {
  const root = await daemonRoot(setup.io.cwd, setup.io.env);
  const shim = await ensureHookShim(setup.io.env);
  const result = await hooks.install({ root, env: setup.io.env, command: (event) => hookCommand(shim, word, event) });
  const inRepo = !path.relative(root, result.file).startsWith('..') && !path.isAbsolute(path.relative(root, result.file));
  const where = inRepo ? path.relative(root, result.file) : result.file;
  const kept = inRepo ? await keepOutOfGit(root, where, setup.io.env) : null;
  const lines = [
    result.changed ? `ai-zen-daemon: hooks installed in ${where}` : `ai-zen-daemon: hooks already installed in ${where}`,
    ...(kept === 'excluded' ? [`  ${where} is kept out of git (.git/info/exclude)`] : []),
    ...(kept === 'tracked' ? [`  note: ${where} is tracked by git; its hooks name this machine's paths`] : []),
    ...(result.notes ?? []),
  ];
  await writeOut(setup.io.stdout, `${lines.join('\n')}\n`);
}

async function installForCodex(setup: CliSetup, trust: boolean): Promise<void> {
  const shim = await ensureHookShim(setup.io.env);
  const result = await installCodexHooks(setup.io.env, (event) => hookCommand(shim, 'codex', event));
  await writeOut(
    setup.io.stdout,
    result.changed
      ? `ai-zen-daemon: hooks installed in ${result.file} (Stop, PreCompact, SessionStart), for Codex sessions in every repo (in a repo without a running daemon they do nothing)\n`
      : `ai-zen-daemon: hooks already installed in ${result.file}\n`,
  );
  // Issue 23 §3: the successor's way back to its predecessors, in Codex's own config.
  const mcp = await installCodexMcp(shim, setup.io.env);
  const lines: string[] = [
    mcp.taken
      ? `  note: ${mcp.file} already has an MCP server named ai-zen of yours: ai-zen-daemon mcp is not added`
      : `  MCP server ai-zen (ai-zen-daemon mcp: handoffs, read_handoff, search_history, read_message) in ${mcp.file}${mcp.changed ? '' : ', already there'}`,
  ];
  if (trust) {
    const codex = setup.io.env.AI_ZEN_CODEX_BIN || 'codex';
    const trusted = await trustOurCodexHooks({ codex, cwd: setup.io.cwd, env: setup.io.env, version: packageVersion() }).catch(
      (error: unknown) => {
        throw new AiZenError('config', `could not trust the hooks in Codex: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    lines.push(
      trusted.trusted.length > 0
        ? `ai-zen-daemon: Codex now trusts ai-zen's ${trusted.trusted.length} hooks (and no other)`
        : "ai-zen-daemon: Codex already trusted ai-zen's hooks",
    );
  } else
    lines.push(
      "Codex runs a hook only once you trust it: open codex, type /hooks and trust ai-zen's three hooks — or run: ai-zen-daemon install-hooks codex --trust",
    );
  await writeOut(setup.io.stdout, `${lines.join('\n')}\n`);
}
