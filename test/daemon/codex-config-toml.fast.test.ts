// Codex's config.toml is Codex's own file too: ai-zen's MCP entry goes in with the same
// compare-and-swap as the JSON settings, and only into a file that parses as TOML — a broken one is
// refused with one line and left byte for byte as it was. In-process, real files.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexMcp } from '../../src/daemon/sources/codex/codex-hooks.js';
import { describeError } from '../../src/errors.js';

describe("Codex's config.toml, written by install-hooks codex", () => {
  let base: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-toml-')));
    env = { AI_ZEN_HOME: path.join(base, 'home'), CODEX_HOME: path.join(base, 'codex') };
    await fs.mkdir(env.CODEX_HOME!, { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });
  const config = () => path.join(env.CODEX_HOME!, 'config.toml');
  const installCodexMcp = (shim: string, env: Record<string, string>) => codexMcp.install({ root: base, env, shim });
  const uninstallCodexMcp = (env: Record<string, string>) => codexMcp.uninstall({ root: base, env });

  it('a config.toml that is not TOML is refused with one line naming the file and its line, and never written over', async () => {
    const broken = 'model = "gpt-5.5"\n[mcp_servers.docs\ncommand = "docs-server"\n';
    await fs.writeFile(config(), broken, { mode: 0o640 });
    const refused = await installCodexMcp('/shim/ai-zen-daemon', env).then(
      () => null,
      (error: unknown) => describeError(error),
    );
    expect(refused).toBe(`${config()} is not valid TOML (line 2); fix it first (nothing was changed)`);
    expect(await fs.readFile(config(), 'utf8')).toBe(broken);
    await expect(uninstallCodexMcp(env)).rejects.toThrow(/is not valid TOML/);
    expect(await fs.readFile(config(), 'utf8')).toBe(broken);
    expect(await fs.readdir(env.CODEX_HOME!)).toEqual(['config.toml']);
  });

  it('an inline mcp_servers table of the user’s, which a table of ours would break, is refused and left as it was', async () => {
    const inline = 'mcp_servers = { docs = { command = "docs-server" } }\n';
    await fs.writeFile(config(), inline);
    await expect(installCodexMcp('/shim/ai-zen-daemon', env)).rejects.toThrow(/cannot be added to its mcp_servers; add it by hand/);
    expect(await fs.readFile(config(), 'utf8')).toBe(inline);
  });

  it('a server of the user’s named ai-zen written any way TOML allows is theirs: install adds nothing', async () => {
    const theirs = '[mcp_servers]\n"ai-zen" = { command = "my-own" }\n';
    await fs.writeFile(config(), theirs);
    expect(await installCodexMcp('/shim/ai-zen-daemon', env)).toEqual({ file: config(), changed: false, taken: true });
    expect(await fs.readFile(config(), 'utf8')).toBe(theirs);
  });

  it('install keeps the file’s mode and the user’s text, is idempotent, and uninstall gives the text back', async () => {
    const theirs = '# my settings\nmodel = "gpt-5.5"\n';
    await fs.writeFile(config(), theirs);
    await fs.chmod(config(), 0o640);
    expect((await installCodexMcp('/shim/ai-zen-daemon', env)).changed).toBe(true);
    const written = await fs.readFile(config(), 'utf8');
    expect(written.startsWith(theirs)).toBe(true);
    expect((await installCodexMcp('/shim/ai-zen-daemon', env)).changed).toBe(false);
    expect(await fs.readFile(config(), 'utf8')).toBe(written);
    expect((await fs.stat(config())).mode & 0o777).toBe(0o640);
    expect((await uninstallCodexMcp(env)).changed).toBe(true);
    expect(await fs.readFile(config(), 'utf8')).toBe(theirs);
    expect((await fs.stat(config())).mode & 0o777).toBe(0o640);
  });
});
