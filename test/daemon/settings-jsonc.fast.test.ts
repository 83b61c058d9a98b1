// Settings files whose agent reads comments (opencode and Kilo: JSONC with trailing commas; Gemini CLI
// and Qwen Code: comments, no trailing comma): install reads them as the agent does and writes only
// the entry it changes, so the user's comments and layout stay; uninstall gives the file back byte for
// byte. A strict agent's file (Claude Code) stays strict. Real files, in-process.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, type ParseError } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/daemon/sources/agent-hooks.js';
import { claudeHooks } from '../../src/daemon/sources/claude-code/claude-agent-hooks.js';
import { geminiHooks } from '../../src/daemon/sources/gemini/gemini-hooks.js';
import { opencodeHooks } from '../../src/daemon/sources/opencode/opencode-plugin.js';
import { installQwenHooks, uninstallQwenHooks } from '../../src/daemon/sources/qwen-code/qwen-hooks.js';
import { editedText } from '../../src/daemon/sources/settings-jsonc.js';

/** A file as opencode reads it: jsonc-parser, trailing commas allowed; any error and it is not read. */
function asOpencodeReads(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  expect(errors).toEqual([]);
  return value;
}

/** The text before `start` and after `end` (the first match of each after it), which an edit between them must not touch. */
function outside(text: string, start: string, end: string): [string, string] {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return [text.slice(0, from), text.slice(to + end.length)];
}

describe('settings files with comments, read and written as their agent reads them', () => {
  let root: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-jsonc-')));
    env = { AI_ZEN_HOME: path.join(root, 'home') };
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });
  const command = (word: string) => (event: HookEvent) => `/shim hook ${word} ${event}`;
  const put = async (name: string, text: string) => {
    await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await fs.writeFile(path.join(root, name), text);
  };
  const text = (name: string) => fs.readFile(path.join(root, name), 'utf8');

  it('opencode: install-hooks keeps the comments and trailing commas of .opencode/opencode.json, changes only the plugin list, and uninstall gives the file back byte for byte', async () => {
    const name = path.join('.opencode', 'opencode.json');
    const theirs = [
      '// The project’s opencode settings',
      '{',
      '  /* the look */',
      '  "theme": "dark", // after a value',
      '  "plugin": [',
      '    "opencode-their-plugin", // theirs',
      '  ],',
      '  "model": "fake/fake-model",',
      '}',
      '',
    ].join('\n');
    await put(name, theirs);
    const hooks = opencodeHooks('opencode');

    const installed = await hooks.install({ root, env, command: command('opencode') });
    expect(installed.changed).toBe(true);
    const after = await text(name);
    const ours = pathToFileURL(path.join(env.AI_ZEN_HOME!, 'opencode', 'ai-zen-hooks.js')).href;
    expect(asOpencodeReads(after)).toEqual({ theme: 'dark', plugin: ['opencode-their-plugin', ours], model: 'fake/fake-model' });
    // Byte for byte outside the plugin list, and inside it the user's item and comment as they were.
    expect(outside(after, '"plugin": [', '],')).toEqual(outside(theirs, '"plugin": [', '],'));
    expect(after).toContain('    "opencode-their-plugin", // theirs\n');
    expect((await hooks.install({ root, env, command: command('opencode') })).changed).toBe(false);

    expect((await hooks.uninstall({ root, env })).changed).toBe(true);
    expect(await text(name)).toBe(theirs);
  });

  it('opencode: a file with comments and no plugin key gets one at its end, in its own comma style, and loses it again byte for byte', async () => {
    const name = path.join('.opencode', 'opencode.json');
    for (const theirs of ['{\n  // no plugins yet\n  "theme": "dark",\n}\n', '{\n\t"theme": "dark" // tabs, no trailing comma\n}']) {
      await put(name, theirs);
      const hooks = opencodeHooks('opencode');
      await hooks.install({ root, env, command: command('opencode') });
      const after = await text(name);
      expect(after.startsWith(theirs.slice(0, theirs.indexOf('"theme"')))).toBe(true);
      expect(asOpencodeReads(after)).toMatchObject({ theme: 'dark', plugin: [expect.stringMatching(/ai-zen-hooks\.js$/)] });
      await hooks.uninstall({ root, env });
      expect(await text(name)).toBe(theirs);
    }
  });

  it('opencode: a file that is not even JSONC is refused in one clear line and left as it was', async () => {
    const name = path.join('.opencode', 'opencode.json');
    const broken = '{\n  // half an edit\n  "theme": "dark"\n  "plugin": [\n}\n';
    await put(name, broken);
    const refused = await opencodeHooks('opencode')
      .install({ root, env, command: command('opencode') })
      .catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(
      /^\.opencode\/opencode\.json is not valid JSONC \(\w+ at line 4\); fix it first \(nothing was changed\)$/,
    );
    expect(await text(name)).toBe(broken);
  }, 10_000);

  it('Gemini and Qwen: install-hooks keeps the comments of their settings.json (their own hooks included) and uninstall gives it back byte for byte', async () => {
    const theirs = (event: string) =>
      [
        '{',
        '    // my settings',
        '    "general": { "vimMode": true }, /* inline */',
        '    "hooks": {',
        `        "${event}": [`,
        '            // my own hook, kept where it is',
        '            { "hooks": [ { "type": "command", "command": "my-stop" } ] }',
        '        ]',
        '    }',
        '}',
        '',
      ].join('\n');
    const agents = [
      {
        name: path.join('.gemini', 'settings.json'),
        word: 'gemini',
        stop: 'AfterAgent',
        install: () => geminiHooks.install({ root, env, command: command('gemini') }),
        uninstall: () => geminiHooks.uninstall({ root, env }),
      },
      {
        name: path.join('.qwen', 'settings.json'),
        word: 'qwen',
        stop: 'Stop',
        install: () => installQwenHooks({ root, env, command: command('qwen') }),
        uninstall: () => uninstallQwenHooks({ root, env }),
      },
    ];
    for (const agent of agents) {
      const before = theirs(agent.stop);
      await put(agent.name, before);
      expect((await agent.install()).changed).toBe(true);
      const after = await text(agent.name);
      // The user's lines up to their own hook stay as they were; ours follow it.
      const mine = '            { "hooks": [ { "type": "command", "command": "my-stop" } ] },\n';
      expect(after.startsWith(before.slice(0, before.indexOf('            { "hooks"')) + mine)).toBe(true);
      const read = asOpencodeReads(after) as { general: unknown; hooks: Record<string, { hooks: { command: string }[] }[]> };
      expect(read.general).toEqual({ vimMode: true });
      expect(read.hooks[agent.stop]!.map((group) => group.hooks[0]!.command)).toEqual(['my-stop', `/shim hook ${agent.word} Stop`]);
      expect((await agent.uninstall()).changed).toBe(true);
      expect(await text(agent.name)).toBe(before);
    }
  });

  it('Gemini and Qwen: a trailing comma, which they refuse, is refused with the line it is on, and the file is left as it was', async () => {
    for (const [name, install] of [
      [path.join('.gemini', 'settings.json'), () => geminiHooks.install({ root, env, command: command('gemini') })],
      [path.join('.qwen', 'settings.json'), () => installQwenHooks({ root, env, command: command('qwen') })],
    ] as const) {
      const trailing = '{\n  // mine\n  "general": { "vimMode": true },\n}\n';
      await put(name, trailing);
      const refused = await install().catch((error: Error) => error);
      expect((refused as Error).message).toBe(
        `${name} is not valid JSON with comments (a trailing comma at line 4); fix it first (nothing was changed)`,
      );
      expect(await text(name)).toBe(trailing);
    }
  }, 20_000);

  it('Claude Code’s settings stay strict JSON: a comment, which Claude Code refuses, is refused and the file left as it was', async () => {
    const name = path.join('.claude', 'settings.local.json');
    const commented = '{\n  // Claude Code calls this "Invalid or malformed JSON"\n  "model": "opus"\n}\n';
    await put(name, commented);
    const refused = await claudeHooks.install({ root, env, command: command('claude') }).catch((error: Error) => error);
    expect((refused as Error).message).toBe(`${name} is not valid JSON; fix it first (nothing was changed)`);
    expect(await text(name)).toBe(commented);
  }, 10_000);

  it('a value of ours that changes (the shim moved) is set in place: the comments around it stay', () => {
    const before =
      '{\n  "hooks": {\n    "Stop": [\n      // ours\n      { "hooks": [{ "type": "command", "command": "/old hook qwen Stop" }] } // still ours\n    ]\n  }\n}\n';
    const value = { hooks: { Stop: [{ hooks: [{ type: 'command', command: '/old hook qwen Stop' }] }] } };
    const next = { hooks: { Stop: [{ hooks: [{ type: 'command', command: '/new hook qwen Stop' }] }] } };
    expect(editedText(before, value, next, 'json-comments')).toBe(before.replace('/old', '/new'));
  });
});
