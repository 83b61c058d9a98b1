// install-hooks / uninstall-hooks on settings files that hold comments, as a user meets them: the
// built ai-zen-daemon spawned as a process in a real git repo. opencode reads its config as JSONC
// (trailing commas too), Gemini CLI comments without trailing commas: install takes what the agent
// takes, keeps the user's comments, and says in one line why it will not touch a file the agent
// itself would refuse. opencode's own reading is checked with the real client (`opencode debug config`).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, type ParseError } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { makeOpencodeHome, OPENCODE_BIN, opencodeEnv } from '../support/opencode-client.js';
import { runCli } from '../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

/** The file as opencode reads it (jsonc-parser, trailing commas allowed). */
function asOpencodeReads(text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true }) as Record<string, unknown>;
  expect(errors).toEqual([]);
  return value;
}

describe('install-hooks on settings files with comments', { timeout: 60_000 }, () => {
  let repo: TempRepo;
  let env: Record<string, string>;
  beforeEach(async () => {
    repo = await makeTempRepo();
    env = { AI_ZEN_HOME: repo.home, GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  });
  afterEach(async () => {
    await repo.cleanup();
  });
  const daemon = (args: string[]) => runCli(args, { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 30_000 });
  const file = (name: string) => path.join(repo.root, name);
  const put = async (name: string, text: string) => {
    await fs.mkdir(path.dirname(file(name)), { recursive: true });
    await fs.writeFile(file(name), text);
  };

  it('opencode: a .opencode/opencode.json with comments and trailing commas takes ai-zen’s plugin (comments kept, opencode reads the rest as before), and uninstall-hooks opencode gives the file back byte for byte', async () => {
    const name = path.join('.opencode', 'opencode.json');
    const theirs = [
      '{',
      '  // the model for this project',
      '  "model": "fake/fake-model", /* pinned */',
      '  "theme": "dark",',
      '}',
      '',
    ].join('\n');
    await put(name, theirs);
    const installed = await daemon(['install-hooks', 'opencode']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hooks installed in .opencode/opencode.json');
    const after = await fs.readFile(file(name), 'utf8');
    // The user's lines as they were; ai-zen's entry on lines of its own before the closing brace.
    expect(after.startsWith(theirs.slice(0, theirs.lastIndexOf('}')))).toBe(true);
    const { plugin, ...rest } = asOpencodeReads(after);
    expect(rest).toEqual(asOpencodeReads(theirs));
    expect(plugin).toEqual([expect.stringMatching(/^file:\/\/.*\/opencode\/ai-zen-hooks\.js$/)]);
    expect((await daemon(['install-hooks', 'opencode'])).stdout).toContain('hooks already installed');

    const removed = await daemon(['uninstall-hooks', 'opencode']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain("ai-zen's hooks removed");
    expect(await fs.readFile(file(name), 'utf8')).toBe(theirs);
  });

  it('opencode itself (the real client, `opencode debug config`) reads the commented file after install-hooks opencode as before plus ai-zen’s plugin, and after uninstall-hooks opencode exactly as before', async () => {
    const home = await makeOpencodeHome(repo.home, { baseURL: 'http://127.0.0.1:9/v1', context: 100_000 });
    const resolved = async () => {
      const { stdout } = await promisify(execFile)(OPENCODE_BIN, ['debug', 'config'], {
        cwd: repo.root,
        env: opencodeEnv(home),
        timeout: 60_000,
      });
      const { plugin_origins: _where, ...config } = JSON.parse(stdout) as Record<string, unknown>;
      return config;
    };
    const name = path.join('.opencode', 'opencode.json');
    const theirPlugin = `file://${path.join(repo.home, 'their-plugin.js')}`;
    // With its $schema already there: opencode writes one into a config file that lacks it.
    const theirs = `{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n  "share": "disabled", /* no sharing */\n  "plugin": [\n    "${theirPlugin}", // theirs\n  ],\n}\n`;
    await put(name, theirs);
    const before = await resolved();
    expect(before.plugin).toEqual([theirPlugin]);

    expect((await daemon(['install-hooks', 'opencode'])).code).toBe(0);
    const { plugin, ...rest } = await resolved();
    expect(plugin).toEqual([theirPlugin, expect.stringMatching(/\/opencode\/ai-zen-hooks\.js$/)]);
    expect(rest).toEqual({ ...before, plugin: undefined });

    expect((await daemon(['uninstall-hooks', 'opencode'])).code).toBe(0);
    expect(await fs.readFile(file(name), 'utf8')).toBe(theirs);
    expect(await resolved()).toEqual(before);
  });

  it('a file its agent would refuse (opencode: not even JSONC; Gemini: a trailing comma) gets one clear line, a non-zero exit, and stays as it was', async () => {
    const cases = [
      {
        agent: 'opencode',
        name: path.join('.opencode', 'opencode.json'),
        text: '{\n  // half an edit\n  "theme": \n}\n',
        says: 'is not valid JSONC (ValueExpected at line 4)',
      },
      {
        agent: 'gemini',
        name: path.join('.gemini', 'settings.json'),
        text: '{\n  // mine\n  "general": { "vimMode": true },\n}\n',
        says: 'is not valid JSON with comments (a trailing comma at line 4)',
      },
    ];
    for (const { agent, name, text, says } of cases) {
      await put(name, text);
      const refused = await daemon(['install-hooks', agent]);
      expect(refused.code).not.toBe(0);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${name} ${says}; fix it first (nothing was changed)`);
      expect(await fs.readFile(file(name), 'utf8')).toBe(text);
    }
  });

  it('gemini: comments in .gemini/settings.json stay through install-hooks gemini, and uninstall-hooks gemini gives the file back byte for byte', async () => {
    const name = path.join('.gemini', 'settings.json');
    const theirs = '{\n  // folder trust is on for this repo\n  "general": { "vimMode": true }\n}\n';
    await put(name, theirs);
    const installed = await daemon(['install-hooks', 'gemini']);
    expect(installed.code, installed.stderr).toBe(0);
    const after = await fs.readFile(file(name), 'utf8');
    expect(after).toContain('  // folder trust is on for this repo\n  "general": { "vimMode": true },\n  "hooks": {');
    expect((await daemon(['uninstall-hooks', 'gemini'])).code).toBe(0);
    expect(await fs.readFile(file(name), 'utf8')).toBe(theirs);
  });
});
