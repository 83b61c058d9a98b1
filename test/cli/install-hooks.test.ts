// install-hooks / uninstall-hooks as a user meets them: the
// CLI spawned as a process against real files, a real git repo, and Codex's own app-server for
// what Codex makes of its hooks.json.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCodexHooks, trustCodexHooks } from '../../src/daemon/sources/codex/codex-hook-trust.js';
import { CODEX_BIN } from '../support/codex-client.js';
import { runCli } from '../support/run-cli-in-process.js';
import { runCli as runScript } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LEAN_HOOK = path.join(ROOT, 'dist', 'cli', 'ai-zen-hook.js');
/** The same entry as one CommonJS file: what the shim runs when it is there. */
const LEAN_HOOK_CJS = path.join(ROOT, 'dist', 'cli', 'ai-zen-hook.cjs');
const RULE = 'Edit(.ai-zen/handoffs/**)';

describe('install-hooks: files kept as the user had them', { timeout: 120_000 }, () => {
  let repo: TempRepo;
  let env: Record<string, string>;
  let codexHome: string;
  beforeEach(async () => {
    repo = await makeTempRepo();
    codexHome = path.join(repo.home, 'codex');
    await fs.mkdir(codexHome, { recursive: true });
    env = { AI_ZEN_HOME: repo.home, CODEX_HOME: codexHome, GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  });
  afterEach(async () => {
    await repo.cleanup();
  });
  const daemon = (args: string[], cwd = repo.root) => runCli(args, { cwd, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
  const settingsFile = () => path.join(repo.root, '.claude', 'settings.local.json');
  const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;

  it('install-hooks and uninstall-hooks keep a 0600 settings file 0600 (Claude’s settings.local.json, Codex’s hooks.json), and a file they create is 0600', async () => {
    await fs.mkdir(path.dirname(settingsFile()), { recursive: true });
    await fs.writeFile(settingsFile(), JSON.stringify({ env: { ANTHROPIC_API_KEY: 'sk-ant-secret' } }), { mode: 0o600 });
    await fs.chmod(settingsFile(), 0o600);
    for (const command of ['install-hooks', 'uninstall-hooks', 'install-hooks']) {
      const result = await daemon([command, 'claude']);
      expect(result.code, result.stderr).toBe(0);
      expect(await mode(settingsFile())).toBe(0o600);
    }
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8')).env.ANTHROPIC_API_KEY).toBe('sk-ant-secret');

    // Codex: a new hooks.json is private; one the user made 0640 stays 0640 through install and uninstall.
    expect((await daemon(['install-hooks', 'codex'])).code).toBe(0);
    const hooks = path.join(codexHome, 'hooks.json');
    expect(await mode(hooks)).toBe(0o600);
    await fs.chmod(hooks, 0o640);
    expect((await daemon(['uninstall-hooks', 'codex'])).code).toBe(0);
    expect(await mode(hooks)).toBe(0o640);
    expect((await daemon(['install-hooks', 'codex'])).code).toBe(0);
    expect(await mode(hooks)).toBe(0o640);
  });

  it('a crash between the two steps of the settings swap (file taken aside, ours not yet in) loses nothing: the next install-hooks puts the user’s file back first', async () => {
    await fs.mkdir(path.dirname(settingsFile()), { recursive: true });
    // What a kill -9 leaves between the rename aside and the link: the user's file under the aside name, the path empty.
    const aside = `${settingsFile()}.ai-zen-aside`;
    await fs.writeFile(aside, JSON.stringify({ env: { ANTHROPIC_API_KEY: 'sk-ant-secret' }, permissions: { allow: ['Read(**)'] } }), {
      mode: 0o600,
    });
    await fs.chmod(aside, 0o600);
    const result = await daemon(['install-hooks', 'claude']);
    expect(result.code, result.stderr).toBe(0);
    const settings = JSON.parse(await fs.readFile(settingsFile(), 'utf8'));
    expect(settings.env.ANTHROPIC_API_KEY).toBe('sk-ant-secret');
    expect(settings.permissions.allow).toEqual(['Read(**)', RULE, 'mcp__ai-zen']);
    expect(await mode(settingsFile())).toBe(0o600);
    await expect(fs.stat(aside)).rejects.toMatchObject({ code: 'ENOENT' });

    // An aside beside a file (a crash after the link, or the agent wrote the file since) is never deleted unread:
    // one that says what the file says is dropped, another is kept under a dated name beside it.
    await fs.copyFile(settingsFile(), aside);
    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    await expect(fs.stat(aside)).rejects.toMatchObject({ code: 'ENOENT' });
    await fs.writeFile(aside, JSON.stringify({ mine: 'older' }));
    expect((await daemon(['install-hooks', 'claude'])).code).toBe(0);
    await expect(fs.stat(aside)).rejects.toMatchObject({ code: 'ENOENT' });
    const kept = (await fs.readdir(path.dirname(settingsFile()))).filter((name) => name.startsWith('settings.local.json.ai-zen-before-'));
    expect(kept).toHaveLength(1);
    expect(JSON.parse(await fs.readFile(path.join(path.dirname(settingsFile()), kept[0]!), 'utf8'))).toEqual({ mine: 'older' });
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8')).env.ANTHROPIC_API_KEY).toBe('sk-ant-secret');
  });

  it('install-hooks claude keeps a permission rule the user already had: in its place, and still there after uninstall-hooks', async () => {
    await fs.mkdir(path.dirname(settingsFile()), { recursive: true });
    const mine = { permissions: { allow: ['Bash(npm test)', RULE, 'Read(**)'] } };
    await fs.writeFile(settingsFile(), JSON.stringify(mine));
    expect((await daemon(['install-hooks', 'claude'])).code).toBe(0);
    // And the rule that lets ai-zen's read-only MCP tools run.
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8')).permissions.allow).toEqual([...mine.permissions.allow, 'mcp__ai-zen']);
    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual(mine);

    // A rule ai-zen added is ai-zen's to take away.
    await fs.writeFile(settingsFile(), JSON.stringify({ permissions: { allow: ['Read(**)'] } }));
    expect((await daemon(['install-hooks', 'claude'])).code).toBe(0);
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8')).permissions.allow).toEqual(['Read(**)', RULE, 'mcp__ai-zen']);
    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    expect(JSON.parse(await fs.readFile(settingsFile(), 'utf8'))).toEqual({ permissions: { allow: ['Read(**)'] } });
  });

  it('the hooks name the stable shim under $AI_ZEN_HOME, not the checkout: a moved ai-zen keeps every repo’s hooks working, a vanished one says so at SessionStart; settings.local.json is kept out of git', async () => {
    const installed = await daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('.git/info/exclude');
    const text = await fs.readFile(settingsFile(), 'utf8');
    const shim = path.join(repo.home, 'bin', 'ai-zen-daemon');
    expect(text).toContain(`${shim} hook claude Stop`);
    expect(text).not.toContain(path.join(ROOT, 'dist'));
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).not.toContain('settings.local.json');
    expect(await fs.readFile(path.join(repo.root, '.git', 'info', 'exclude'), 'utf8')).toContain('/.claude/settings.local.json');

    // ai-zen moves (a re-clone, an upgrade elsewhere): running the new one repoints the shim; the settings stay as they were.
    const moved = path.join(path.dirname(repo.root), 'ai-zen-moved');
    await fs.mkdir(moved);
    await fs.cp(path.join(ROOT, 'dist'), path.join(moved, 'dist'), { recursive: true });
    await fs.cp(path.join(ROOT, 'skills'), path.join(moved, 'skills'), { recursive: true });
    await fs.copyFile(path.join(ROOT, 'package.json'), path.join(moved, 'package.json'));
    await fs.symlink(path.join(ROOT, 'node_modules'), path.join(moved, 'node_modules'));
    // Which ai-zen runs is the script's own place: only a process shows it.
    const again = await runScript(['install-hooks', 'claude'], {
      cwd: repo.root,
      env,
      bin: path.join(moved, 'dist', 'cli', 'ai-zen-daemon.js'),
    });
    expect(again.stdout).toContain('already installed');
    expect(await fs.readFile(settingsFile(), 'utf8')).toBe(text);
    expect(await fs.readFile(shim, 'utf8')).toContain(path.join(moved, 'dist', 'cli', 'ai-zen-daemon.js'));
    // The shim runs the lean entry for a hook (the agent waits on it), not the whole CLI: its CommonJS file, else its module.
    expect(await fs.readFile(shim, 'utf8')).toContain('/ai-zen-hook" ;;');
    expect(await fs.readFile(shim, 'utf8')).toContain('set -- "$lean.cjs" "$@"');
    expect(await fs.readFile(shim, 'utf8')).toContain('set -- "$lean.js" "$@"');
    const version = await runShim(shim, ['--version'], '');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    // The moved copy is deleted and no ai-zen-daemon is on the PATH: exit 0, and SessionStart tells the session.
    await fs.rm(moved, { recursive: true, force: true });
    const lost = await runShim(shim, ['hook', 'claude', 'SessionStart'], JSON.stringify({ transcript_path: '/x.jsonl', cwd: repo.root }));
    expect(lost.code).toBe(0);
    expect(JSON.parse(lost.stdout).hookSpecificOutput.additionalContext).toContain('NOT protected');
  });

  it('unprotected is never silent: in a repo with ai-zen’s hooks and no daemon, SessionStart adds one line of context naming the fix', async () => {
    const input = JSON.stringify({ transcript_path: path.join(repo.root, 'x.jsonl'), cwd: repo.root, source: 'startup' });
    // `ai-zen-daemon hook …` and the lean entry the shim runs for it (ai-zen-hook.js, a bundle: run as a process) answer alike.
    const hookRuns = [
      (agent: string, event: string) => runCli(['hook', agent, event], { cwd: repo.root, env, bin: DAEMON_BIN, input }),
      (agent: string, event: string) => runScript([agent, event], { cwd: repo.root, env, bin: LEAN_HOOK, input }),
      (agent: string, event: string) => runScript([agent, event], { cwd: repo.root, env, bin: LEAN_HOOK_CJS, input }),
    ];
    for (const run of hookRuns) {
      for (const agent of ['claude', 'codex']) {
        const result = await run(agent, 'SessionStart');
        expect(result.code).toBe(0);
        const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
        expect(context).toContain('NOT protected');
        expect(context).toContain('ai-zen-daemon start');
        expect(context.split('\n')).toHaveLength(1);
      }
      // The other events stay silent without a daemon: a hook never gets in the agent's way.
      expect(await run('claude', 'Stop')).toMatchObject({ code: 0, stdout: '' });
    }
    // The lean entry run by hand without its two words: one line and the usage exit, as the full CLI's.
    for (const bin of [LEAN_HOOK, LEAN_HOOK_CJS]) {
      const bare = await runScript(['claude'], { cwd: repo.root, env, bin });
      expect(bare.code).toBe(2);
      expect(bare.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('uninstall-hooks codex and a reinstall leave the user’s own Codex hooks trusted (a hook after ai-zen’s keeps its place)', async () => {
    const hooks = path.join(codexHome, 'hooks.json');
    const before = { type: 'command', command: '/usr/local/bin/their-check --before', timeout: 5 };
    await fs.writeFile(hooks, JSON.stringify({ hooks: { Stop: [{ hooks: [before] }] } }));
    expect((await daemon(['install-hooks', 'codex'])).code).toBe(0);
    // The user adds a hook after ai-zen's, then trusts both of theirs in Codex.
    const after = { type: 'command', command: '/usr/local/bin/their-check --after', timeout: 5 };
    const file = JSON.parse(await fs.readFile(hooks, 'utf8'));
    file.hooks.Stop.push({ hooks: [after] });
    await fs.writeFile(hooks, JSON.stringify(file, null, 2));
    const codex = {
      codex: CODEX_BIN,
      cwd: repo.root,
      env: { PATH: process.env.PATH ?? '', HOME: repo.home, CODEX_HOME: codexHome },
      version: '0',
    };
    const theirs = (command: string) => command.startsWith('/usr/local/bin/their-check');
    expect((await trustCodexHooks(codex, theirs)).trusted).toHaveLength(2);
    const trustOfTheirs = async () =>
      (await listCodexHooks(codex))
        .filter((hook) => typeof hook.command === 'string' && theirs(hook.command))
        .map((hook) => `${hook.command} ${hook.trustStatus}`);
    const trusted = ['/usr/local/bin/their-check --before trusted', '/usr/local/bin/their-check --after trusted'];
    expect(await trustOfTheirs()).toEqual(trusted);

    expect((await daemon(['uninstall-hooks', 'codex'])).code).toBe(0);
    expect(await fs.readFile(hooks, 'utf8')).not.toContain(' hook codex ');
    expect(await trustOfTheirs()).toEqual(trusted);
    expect((await daemon(['install-hooks', 'codex'])).code).toBe(0);
    expect(await trustOfTheirs()).toEqual(trusted);
    expect((await listCodexHooks(codex)).filter((hook) => hook.command?.includes(' hook codex '))).toHaveLength(3);
  });
});

function runShim(shim: string, args: string[], input: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // No ai-zen-daemon on this PATH: only the system's tools.
    const child = spawn(shim, args, { env: { PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(input);
  });
}
