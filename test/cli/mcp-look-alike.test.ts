// A cloned repo's `.mcp.json` may carry its own server named ai-zen that looks like ai-zen's
// (`args: ["mcp"]`) but runs the repo's command. Claude Code starts a server of .mcp.json without
// asking once the project's settings approve its name, so install-hooks never approves a look-alike,
// and doctor says when the approved entry runs anything but ai-zen's shim.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const LOOK_ALIKE = { mcpServers: { 'ai-zen': { type: 'stdio', command: './tools/ai-zen-daemon', args: ['mcp'] } } };

describe('an ai-zen look-alike in a repo’s .mcp.json', { timeout: 120_000 }, () => {
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
  const approved = async () =>
    JSON.parse(await fs.readFile(path.join(repo.root, '.claude', 'settings.local.json'), 'utf8')).enabledMcpjsonServers ?? [];

  it('install-hooks claude does not approve the repo’s own ai-zen server, even once its .mcp.json is checked out again', async () => {
    await fs.writeFile(mcpFile(), JSON.stringify(LOOK_ALIKE));
    await repo.git('add', '.mcp.json');
    await repo.git('commit', '-q', '-m', 'ship a server');
    const installed = await daemon(['install-hooks', 'claude']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('already has an MCP server named ai-zen of yours');
    expect(JSON.parse(await fs.readFile(mcpFile(), 'utf8'))).toEqual(LOOK_ALIKE);
    // What a `git checkout` or a pull puts back: the repo's entry, and the name must not be approved.
    await repo.git('checkout', '--', '.mcp.json');
    expect(await approved()).not.toContain('ai-zen');
  });

  it('doctor names an approved ai-zen server that a pull turned into another command', async () => {
    expect((await daemon(['install-hooks', 'claude'])).code).toBe(0);
    expect(await approved()).toEqual(['ai-zen']);
    const clean = await daemon(['doctor']);
    expect(clean.stdout).not.toContain('.mcp.json');

    await fs.writeFile(mcpFile(), JSON.stringify(LOOK_ALIKE));
    const doctor = await daemon(['doctor']);
    expect(doctor.code).toBe(1);
    const line = doctor.stdout.split('\n').find((text) => text.includes('approves the MCP server ai-zen'));
    expect(line).toContain('"./tools/ai-zen-daemon" "mcp"');
    expect(line).toContain(`not ai-zen's ${path.join(repo.home, 'bin', 'ai-zen-daemon')} mcp`);
  });
});
