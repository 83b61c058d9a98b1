// What an agent's table asks of the shared hook machinery (kit/settings-hooks.ts) beyond what every
// agent's contract checks: the user's hooks keep their places where the agent trusts a hook by its
// place (Codex), flat entries go back at the end of each event's list (Copilot), and a rule install
// adds beside the hooks is taken out only when ai-zen added it (Claude Code). Real files, in-process.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/daemon/sources/agent-hooks.js';
import { CLAUDE_SHAPE, settingsHooks } from '../../src/daemon/sources/kit/settings-hooks.js';

describe('hooks from an agent’s table', () => {
  let base: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-table-')));
    env = { AI_ZEN_HOME: path.join(base, 'home') };
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });
  const command = (word: string) => (event: HookEvent) => `/shim hook ${word} ${event}`;
  const write = (file: string, value: unknown) => fs.writeFile(path.join(base, file), JSON.stringify(value));
  const read = async (file: string) => JSON.parse(await fs.readFile(path.join(base, file), 'utf8'));
  const theirs = { hooks: [{ type: 'command', command: 'their-stop', timeout: 5 }] };

  it('where a hook is trusted by its place, uninstall leaves a placeholder before the user’s hook and a reinstall fills it', async () => {
    const table = settingsHooks({ ...CLAUDE_SHAPE, word: 'codex', file: 'hooks.json', keepPositions: true });
    await table.hooks.install({ root: base, env, command: command('codex') });
    const installed = await read('hooks.json');
    await write('hooks.json', { hooks: { ...installed.hooks, Stop: [...installed.hooks.Stop, theirs] } });
    const before = await read('hooks.json');

    await table.hooks.uninstall({ root: base, env });
    expect((await read('hooks.json')).hooks.Stop).toEqual([{ hooks: [] }, theirs]);
    await table.hooks.install({ root: base, env, command: command('codex') });
    expect(await read('hooks.json')).toEqual(before);
  });

  it('flat entries (Copilot’s bash and timeoutSec) are taken out wherever they are and go back after the user’s', async () => {
    const table = settingsHooks({ ...CLAUDE_SHAPE, word: 'copilot', file: 'flat.json', entry: { command: 'bash', timeout: 'timeoutSec' } });
    const mine = { type: 'command', bash: 'their-stop', timeoutSec: 5 };
    await write('flat.json', { hooks: { Stop: [{ type: 'command', bash: '/old hook copilot Stop', timeoutSec: 1 }, mine] } });
    await table.hooks.install({ root: base, env, command: command('copilot') });
    const { hooks } = await read('flat.json');
    expect(hooks.Stop).toEqual([mine, { type: 'command', bash: '/shim hook copilot Stop', timeoutSec: 60 }]);
    expect(hooks.SessionStart).toEqual([{ type: 'command', bash: '/shim hook copilot SessionStart', timeoutSec: 10 }]);
    expect(await table.installed({ root: base, env })).toBe(true);
    await table.hooks.uninstall({ root: base, env });
    expect(await read('flat.json')).toEqual({ hooks: { Stop: [mine] } });
    expect(await table.installed({ root: base, env })).toBe(false);
  });

  it('a rule install adds beside the hooks goes with uninstall; a rule the user had before stays', async () => {
    const table = settingsHooks({
      ...CLAUDE_SHAPE,
      word: 'claude',
      file: 'rules.json',
      rule: { at: ['permissions', 'allow'], item: 'Edit(x)' },
    });
    await table.hooks.install({ root: base, env, command: command('claude') });
    expect((await read('rules.json')).permissions).toEqual({ allow: ['Edit(x)'] });
    await table.hooks.uninstall({ root: base, env });
    expect(await read('rules.json')).toEqual({});

    await write('rules.json', { permissions: { allow: ['Read(**)', 'Edit(x)'] } });
    await table.hooks.install({ root: base, env, command: command('claude') });
    await table.hooks.uninstall({ root: base, env });
    expect(await read('rules.json')).toEqual({ permissions: { allow: ['Read(**)', 'Edit(x)'] } });
  });

  it('an agent that reads milliseconds and names the events its own way gets ours in its words', async () => {
    const table = settingsHooks({ ...CLAUDE_SHAPE, word: 'gemini', file: 'ms.json', names: { Stop: 'AfterAgent' }, milliseconds: true });
    await table.hooks.install({ root: base, env, command: command('gemini') });
    const { hooks } = await read('ms.json');
    expect(Object.keys(hooks)).toEqual(['AfterAgent', 'PreCompact', 'SessionStart']);
    expect(hooks.AfterAgent).toEqual([{ hooks: [{ type: 'command', command: '/shim hook gemini Stop', timeout: 60_000 }] }]);
    expect(await table.installed({ root: base, env })).toBe(true);
  });
});
