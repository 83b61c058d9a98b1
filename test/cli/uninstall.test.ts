// `ai-zen-daemon uninstall [--all]` as a user meets it: the built CLI run as a process on a real git
// repo and a temp HOME where every agent's pieces went in through the real install-hooks, enable,
// trust and service install; afterwards the files are what the user had, byte for byte, and a hook
// still run there says nothing.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { CODEX_BIN } from '../support/codex-client.js';
import { runCli } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'pi', 'copilot', 'opencode', 'kilo'];

/** Every file and folder under `folder` (git's own files but the exclude file left out), with its bytes. */
async function tree(folder: string, skip: readonly string[] = []): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(folder, full);
      if (skip.some((skipped) => full === skipped)) continue;
      if (
        relative.startsWith(`.git${path.sep}`) &&
        relative !== path.join('.git', 'info', 'exclude') &&
        relative !== path.join('.git', 'info')
      )
        continue;
      if (entry.isDirectory()) {
        found[`${relative}/`] = '';
        await walk(full);
      } else found[relative] = await fs.readFile(full, 'utf8');
    }
  };
  await walk(folder);
  return found;
}

describe('uninstall: nothing of ai-zen left behind', { timeout: 180_000 }, () => {
  let repo: TempRepo;
  let user: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    repo = await makeTempRepo();
    user = path.join(path.dirname(repo.root), 'user');
    env = {
      HOME: user,
      AI_ZEN_HOME: path.join(user, '.ai-zen'),
      CODEX_HOME: path.join(user, '.codex'),
      XDG_CONFIG_HOME: path.join(user, '.config'),
      GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
    };
    await fs.mkdir(path.join(user, '.codex'), { recursive: true });
  });
  afterEach(async () => {
    await repo.cleanup();
  });
  const daemon = (args: string[]) => runCli(args, { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
  const hook = (agent: string) =>
    runCli(['hook', agent, 'SessionStart'], {
      cwd: repo.root,
      env,
      bin: DAEMON_BIN,
      input: JSON.stringify({ transcript_path: path.join(repo.root, 'x.jsonl'), cwd: repo.root, source: 'startup', session_id: 's1' }),
    });

  it('uninstall puts every agent’s files in the repo back byte for byte (and removes those ai-zen created), and a hook run there afterwards prints nothing; uninstall --all does the same for the user’s files, Codex’s trust of ours included', async () => {
    // What the user had: files in their own layouts, with entries of their own in them.
    await fs.mkdir(path.join(repo.root, '.claude'));
    await fs.writeFile(
      path.join(repo.root, '.claude', 'settings.local.json'),
      '{"env": {"EDITOR": "vim"}, "permissions": {"allow": ["Read(**)"]}}',
    );
    await fs.mkdir(path.join(repo.root, '.qwen'));
    await fs.writeFile(
      path.join(repo.root, '.qwen', 'settings.json'),
      '{\n    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/their-linter"}]}]}\n}\n',
    );
    const codexConfig = path.join(user, '.codex', 'config.toml');
    const theirTrust = `[hooks.state."/elsewhere/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:${'1'.repeat(64)}"\n`;
    await fs.writeFile(codexConfig, `# my codex\nmodel = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n\n${theirTrust}`);
    const repoBefore = await tree(repo.root);
    const userBefore = await tree(user);

    // Everything ai-zen installs, as the README says to.
    expect((await daemon(['enable'])).code).toBe(0);
    for (const agent of AGENTS) {
      const installed = await daemon(['install-hooks', agent]);
      expect(installed.code, `${agent}: ${installed.stderr}`).toBe(0);
    }
    expect((await daemon(['trust'])).code).toBe(0);
    await daemon(['service', 'install', '--platform', 'linux']);
    const unit = path.join(user, '.config', 'systemd', 'user', 'ai-zen.service');
    expect(await fs.readFile(unit, 'utf8')).toContain('ai-zen');
    // Codex's trust of ai-zen's three hooks, as its /hooks screen writes it (keyed by their places in hooks.json).
    const hooksJson = path.join(user, '.codex', 'hooks.json');
    const ourTrust = ['stop', 'pre_compact', 'session_start']
      .map((event) => `[hooks.state."${hooksJson}:${event}:0:0"]\ntrusted_hash = "sha256:${'2'.repeat(64)}"\n`)
      .join('\n');
    await fs.appendFile(codexConfig, `\n${ourTrust}`);
    const repoInstalled = await tree(repo.root);
    for (const file of ['.pi/settings.json', '.gemini/settings.json', '.github/copilot/settings.local.json', '.mcp.json'])
      expect(repoInstalled[file], file).toContain('ai-zen');
    expect(repoInstalled['.qwen/settings.json']).toContain('hook qwen Stop');

    // One command for the repo.
    const uninstalled = await daemon(['uninstall']);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect(uninstalled.stderr).toBe('');
    expect(uninstalled.stdout).toContain('uninstall --all');
    expect(await tree(repo.root)).toEqual(repoBefore);
    // Codex's hooks are the user's, for every repo: they stay until --all, and say nothing here.
    expect(await fs.readFile(hooksJson, 'utf8')).toContain('hook codex Stop');
    for (const agent of AGENTS) expect(await hook(agent), agent).toMatchObject({ code: 0, stdout: '' });
    expect(JSON.parse(await fs.readFile(path.join(env.AI_ZEN_HOME!, 'enabled.json'), 'utf8')).repos).toEqual([]);
    expect(await fs.readdir(path.join(env.AI_ZEN_HOME!, 'trust')).catch(() => [])).toEqual([]);
    await expect(fs.stat(unit)).rejects.toMatchObject({ code: 'ENOENT' });
    // Again: nothing more to do, still no error.
    expect((await daemon(['uninstall'])).code).toBe(0);

    // Installed again, then everything for the user at once.
    for (const agent of ['claude', 'qwen', 'opencode']) expect((await daemon(['install-hooks', agent])).code).toBe(0);
    const all = await daemon(['uninstall', '--all']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe('');
    expect(await tree(repo.root)).toEqual(repoBefore);
    expect(await tree(user, [env.AI_ZEN_HOME!, path.join(user, '.config')])).toEqual(userBefore);
    await expect(fs.stat(unit)).rejects.toMatchObject({ code: 'ENOENT' });
    for (const gone of ['bin', 'pi', 'opencode', 'kilo', 'installed-hooks.json', 'installed-files.json', 'enabled.json'])
      await expect(fs.stat(path.join(env.AI_ZEN_HOME!, gone)), gone).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file the user changed after install keeps their change: only ai-zen’s entries go', async () => {
    expect((await daemon(['install-hooks', 'qwen'])).code).toBe(0);
    const file = path.join(repo.root, '.qwen', 'settings.json');
    const settings = JSON.parse(await fs.readFile(file, 'utf8'));
    await fs.writeFile(file, JSON.stringify({ ...settings, theme: 'dark' }, null, 2));
    const result = await daemon(['uninstall']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ theme: 'dark' });
    expect(result.stdout).toContain('your changes since are kept');
  });

  it('uninstall --all takes out the trust Codex itself wrote for ai-zen’s hooks (install-hooks codex --trust, through its app-server): config.toml back byte for byte, hooks.json gone', async () => {
    const config = path.join(user, '.codex', 'config.toml');
    const before = '# mine\nmodel = "o3"\n';
    await fs.writeFile(config, before);
    const trusted = await runCli(['install-hooks', 'codex', '--trust'], {
      cwd: repo.root,
      env: { ...env, AI_ZEN_CODEX_BIN: CODEX_BIN },
      bin: DAEMON_BIN,
      timeoutMs: 90_000,
    });
    expect(trusted.stdout, trusted.stderr).toContain("Codex now trusts ai-zen's 3 hooks");
    expect(await fs.readFile(config, 'utf8')).toContain('[hooks.state.');
    const all = await daemon(['uninstall', '--all']);
    expect(all.code, all.stderr).toBe(0);
    expect(await fs.readFile(config, 'utf8')).toBe(before);
    await expect(fs.stat(path.join(user, '.codex', 'hooks.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
