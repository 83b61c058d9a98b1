// `install-hooks claude` registers `ai-zen-daemon mcp` for Claude Code (.mcp.json,
// approved by name in .claude/settings.local.json, through the stable shim); `uninstall-hooks`
// takes away only that — the user's own MCP servers, and a server of theirs named ai-zen, stay.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('the MCP server registered by install-hooks', { timeout: 120_000 }, () => {
  let repo: TempRepo;
  let env: Record<string, string>;
  beforeEach(async () => {
    repo = await makeTempRepo();
    env = { AI_ZEN_HOME: repo.home, GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  });
  afterEach(async () => {
    await repo.cleanup();
  });
  const daemon = (args: string[]) => runCli(args, { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
  const mcpFile = () => path.join(repo.root, '.mcp.json');
  const settings = async () => JSON.parse(await fs.readFile(path.join(repo.root, '.claude', 'settings.local.json'), 'utf8'));

  it('install-hooks claude adds the ai-zen server (the shim, mcp) beside the user’s, approves it, keeps .mcp.json out of git; uninstall-hooks leaves the user’s server as it was', async () => {
    const theirs = { mcpServers: { docs: { command: 'docs-server', args: ['--stdio'] } } };
    await fs.writeFile(mcpFile(), JSON.stringify(theirs));
    const installed = await daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('MCP server ai-zen (ai-zen-daemon mcp');
    const written = JSON.parse(await fs.readFile(mcpFile(), 'utf8'));
    expect(written.mcpServers.docs).toEqual(theirs.mcpServers.docs);
    expect(written.mcpServers['ai-zen']).toEqual({ type: 'stdio', command: path.join(repo.home, 'bin', 'ai-zen-daemon'), args: ['mcp'] });
    expect((await settings()).enabledMcpjsonServers).toEqual(['ai-zen']);
    expect((await settings()).permissions.allow).toContain('mcp__ai-zen');
    expect(await fs.readFile(path.join(repo.root, '.git', 'info', 'exclude'), 'utf8')).toContain('/.mcp.json');
    expect((await daemon(['install-hooks', 'claude'])).stdout).toContain('in .mcp.json, already there');

    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    expect(JSON.parse(await fs.readFile(mcpFile(), 'utf8'))).toEqual(theirs);
    const after = await settings();
    expect(after.enabledMcpjsonServers).toBeUndefined();
    expect(JSON.stringify(after)).not.toContain('mcp__ai-zen');
  });

  it('a .mcp.json that held only ai-zen’s server goes with uninstall; a server of the user’s named ai-zen is never replaced', async () => {
    expect((await daemon(['install-hooks', 'claude'])).code).toBe(0);
    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    await expect(fs.stat(mcpFile())).rejects.toThrow(/ENOENT/);

    const mine = { mcpServers: { 'ai-zen': { command: 'my-own', args: ['serve'] } } };
    await fs.writeFile(mcpFile(), JSON.stringify(mine));
    const installed = await daemon(['install-hooks', 'claude']);
    expect(installed.stdout).toContain('already has an MCP server named ai-zen of yours');
    expect(JSON.parse(await fs.readFile(mcpFile(), 'utf8'))).toEqual(mine);
    expect((await daemon(['uninstall-hooks', 'claude'])).code).toBe(0);
    expect(JSON.parse(await fs.readFile(mcpFile(), 'utf8'))).toEqual(mine);
  });

  it('install-hooks codex adds [mcp_servers.ai-zen] (the shim, mcp) to Codex’s config.toml after the user’s settings; uninstall-hooks codex gives back the file as it was', async () => {
    const codexHome = path.join(repo.home, 'codex');
    await fs.mkdir(codexHome, { recursive: true });
    const config = path.join(codexHome, 'config.toml');
    const theirs = 'model = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n';
    await fs.writeFile(config, theirs, { mode: 0o600 });
    await fs.chmod(config, 0o600);
    const run = (args: string[]) =>
      runCli(args, { cwd: repo.root, env: { ...env, CODEX_HOME: codexHome }, bin: DAEMON_BIN, timeoutMs: 60_000 });
    const installed = await run(['install-hooks', 'codex']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`MCP server ai-zen (ai-zen-daemon mcp`);
    const written = await fs.readFile(config, 'utf8');
    expect(written.startsWith(theirs)).toBe(true);
    expect(written).toContain(
      `[mcp_servers.ai-zen]\ncommand = ${JSON.stringify(path.join(repo.home, 'bin', 'ai-zen-daemon'))}\nargs = ["mcp"]\n`,
    );
    expect((await fs.stat(config)).mode & 0o777).toBe(0o600);
    expect((await run(['install-hooks', 'codex'])).stdout).toContain('already there');
    expect(await fs.readFile(config, 'utf8')).toBe(written);
    expect((await run(['uninstall-hooks', 'codex'])).code).toBe(0);
    expect(await fs.readFile(config, 'utf8')).toBe(theirs);

    // A table of the user's named ai-zen is theirs.
    const mine = `${theirs}\n[mcp_servers.ai-zen]\ncommand = "my-own"\n`;
    await fs.writeFile(config, mine);
    expect((await run(['install-hooks', 'codex'])).stdout).toContain('already has an MCP server named ai-zen of yours');
    expect((await run(['uninstall-hooks', 'codex'])).code).toBe(0);
    expect(await fs.readFile(config, 'utf8')).toBe(mine);
  });
});
