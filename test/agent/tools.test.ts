// The agent's tools (SPEC "Agent tools"), run the way the agent runs them: raw JSON arguments
// from the model, checked, confined to the project root.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolCall } from '../../src/agent/run-tool-call.js';
import { createTools } from '../../src/agent/tools/index.js';
import type { ToolResult } from '../../src/agent/types.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('agent tools', () => {
  let repo: TempRepo;
  let outside: string;
  const tools = createTools({ execTimeoutMs: 5_000, execOutputLimit: 200 });
  let callId = 0;
  const call = (name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> =>
    runToolCall({
      call: {
        id: `call_${++callId}`,
        type: 'function',
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      },
      tools,
      context: { root: repo.root, ...(signal ? { signal } : {}) },
    });
  const file = (relative: string) => path.join(repo.root, relative);
  const readText = (relative: string) => fs.readFile(file(relative), 'utf8');

  beforeEach(async () => {
    repo = await makeTempRepo();
    outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-outside-')));
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
  });
  afterEach(async () => {
    await repo.cleanup();
    await fs.rm(outside, { recursive: true, force: true });
  });

  it('has exactly the tools of the SPEC', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['read', 'write', 'edit', 'batch_edit', 'rm', 'rename', 'mkdir', 'copy', 'exec']);
  });

  it('read returns a file, a slice of lines, or a folder listing', async () => {
    await fs.writeFile(file('a.ts'), 'one\ntwo\nthree\n');
    expect((await call('read', { path: 'a.ts' })).forModel).toBe('one\ntwo\nthree\n');
    expect((await call('read', { path: 'a.ts', offset: 2, limit: 1 })).forModel).toBe('two\n[lines 2-2 of 4]');
    const listing = await call('read', { path: '.' });
    expect(listing.forModel.split('\n')).toEqual(expect.arrayContaining(['.git/', 'README.md', 'a.ts']));
    const missing = await call('read', { path: 'nope.txt' });
    expect(missing).toMatchObject({ isError: true, forModel: 'error: cannot read nope.txt: no such file or folder' });
  });

  it('write creates folders and replaces files atomically', async () => {
    const result = await call('write', { path: 'src/deep/new.ts', content: 'export {};\n' });
    expect(result).toMatchObject({ isError: false, forModel: 'wrote src/deep/new.ts (11 bytes)' });
    expect(await readText('src/deep/new.ts')).toBe('export {};\n');
    await call('write', { path: 'src/deep/new.ts', content: 'v2' });
    expect(await readText('src/deep/new.ts')).toBe('v2');
  });

  it('edit replaces exactly one occurrence, and says why when it cannot', async () => {
    await fs.writeFile(file('a.txt'), 'alpha beta alpha gamma');
    expect((await call('edit', { path: 'a.txt', old: 'beta', new: 'BETA' })).isError).toBe(false);
    expect(await readText('a.txt')).toBe('alpha BETA alpha gamma');
    const twice = await call('edit', { path: 'a.txt', old: 'alpha', new: 'x' });
    expect(twice.forModel).toMatch(/old text occurs 2 times/);
    const absent = await call('edit', { path: 'a.txt', old: 'delta', new: 'x' });
    expect(absent.forModel).toMatch(/old text not found/);
    expect(await readText('a.txt')).toBe('alpha BETA alpha gamma');
  });

  it('batch_edit applies edits in order, all or nothing', async () => {
    await fs.writeFile(file('b.txt'), 'one two three');
    const ok = await call('batch_edit', {
      path: 'b.txt',
      edits: [
        { old: 'one', new: '1' },
        { old: '1 two', new: '1 2' },
      ],
    });
    expect(ok.isError).toBe(false);
    expect(await readText('b.txt')).toBe('1 2 three');
    const partial = await call('batch_edit', {
      path: 'b.txt',
      edits: [
        { old: 'three', new: '3' },
        { old: 'missing', new: 'x' },
      ],
    });
    expect(partial.forModel).toMatch(/edit 2 of 2: old text not found.*nothing was changed/);
    expect(await readText('b.txt')).toBe('1 2 three');
  });

  it('rm removes a file or a folder with its content', async () => {
    await fs.mkdir(file('dir/sub'), { recursive: true });
    await fs.writeFile(file('dir/sub/x.txt'), 'x');
    await fs.writeFile(file('f.txt'), 'f');
    expect((await call('rm', { path: 'f.txt' })).forModel).toBe('removed file f.txt');
    expect((await call('rm', { path: 'dir' })).forModel).toBe('removed folder dir');
    await expect(fs.lstat(file('dir'))).rejects.toThrow();
    expect((await call('rm', { path: '.' })).isError).toBe(true);
  });

  it('rename moves within the project and never over an existing file', async () => {
    await fs.writeFile(file('old.txt'), 'content');
    await fs.writeFile(file('taken.txt'), 'keep');
    expect((await call('rename', { from: 'old.txt', to: 'taken.txt' })).forModel).toMatch(/taken.txt already exists/);
    expect((await call('rename', { from: 'old.txt', to: 'moved/new.txt' })).isError).toBe(false);
    expect(await readText('moved/new.txt')).toBe('content');
    expect(await readText('taken.txt')).toBe('keep');
  });

  it('mkdir creates nested folders', async () => {
    expect((await call('mkdir', { path: 'a/b/c' })).isError).toBe(false);
    expect((await fs.stat(file('a/b/c'))).isDirectory()).toBe(true);
  });

  it('copy copies files and folders, never over an existing one', async () => {
    await fs.mkdir(file('src'));
    await fs.writeFile(file('src/a.txt'), 'A');
    expect((await call('copy', { from: 'src/a.txt', to: 'b.txt' })).isError).toBe(false);
    expect(await readText('b.txt')).toBe('A');
    expect((await call('copy', { from: 'src', to: 'src-copy' })).isError).toBe(false);
    expect(await readText('src-copy/a.txt')).toBe('A');
    expect((await call('copy', { from: 'src/a.txt', to: 'b.txt' })).forModel).toMatch(/already exists/);
  });

  it("T1 no tool changes ai-zen's state (.ai-zen/) or git's (.git/), by any path or symlink; reading stays allowed; an existing handoff document may be rewritten (R17)", async () => {
    const doc = '.ai-zen/handoffs/20261203-010203-abcd1234.md';
    await fs.mkdir(file('.ai-zen/sessions'), { recursive: true });
    await fs.mkdir(file('.ai-zen/handoffs'), { recursive: true });
    await fs.writeFile(file('.ai-zen/sessions/abcd1234-session.jsonl'), '{"type":"session"}\n');
    await fs.writeFile(file(doc), '');
    await fs.symlink(file('.ai-zen/sessions'), file('sessions-link'));
    const refusals = [
      await call('write', { path: '.ai-zen/sessions/planted0001.jsonl', content: 'x' }),
      await call('write', { path: 'sessions-link/planted0002.jsonl', content: 'x' }),
      await call('write', { path: 'src/../.AI-ZEN/latest-session.json', content: '{}' }),
      await call('write', { path: '.ai-zen/handoffs/20261203-010204-abcd1234.md', content: 'a new document nobody reserved' }),
      await call('edit', { path: '.ai-zen/sessions/abcd1234-session.jsonl', old: 'session', new: 'handoff' }),
      await call('batch_edit', { path: '.git/config', edits: [{ old: '[core]', new: '[core]\n\thooksPath = x' }] }),
      await call('rm', { path: '.ai-zen/sessions' }),
      await call('rm', { path: '.git' }),
      await call('rename', { from: '.ai-zen/sessions/abcd1234-session.jsonl', to: 'moved.jsonl' }),
      await call('rename', { from: 'README.md', to: '.ai-zen/sessions/readme0001.jsonl' }),
      await call('mkdir', { path: '.git/hooks/x' }),
      await call('copy', { from: 'README.md', to: '.git/hooks/pre-commit' }),
    ];
    for (const result of refusals)
      expect(result).toMatchObject({ isError: true, forModel: expect.stringMatching(/^error: refused: .*inside \.(ai-zen|git)\//) });
    expect((await fs.readdir(file('.ai-zen/sessions'))).sort()).toEqual(['abcd1234-session.jsonl']);
    expect(await readText('.ai-zen/sessions/abcd1234-session.jsonl')).toBe('{"type":"session"}\n');
    await expect(fs.access(file('.git/hooks/pre-commit'))).rejects.toThrow();

    expect((await call('read', { path: '.ai-zen/sessions/abcd1234-session.jsonl' })).forModel).toBe('{"type":"session"}\n');
    expect(await call('write', { path: doc, content: '# Handoff\n\nfirst\n' })).toMatchObject({ isError: false });
    expect(await call('edit', { path: doc, old: 'first', new: 'more detail in section 3' })).toMatchObject({ isError: false });
    expect(await readText(doc)).toBe('# Handoff\n\nmore detail in section 3\n');
    expect(await call('rm', { path: doc })).toMatchObject({ isError: true });
    expect(await call('rm', { path: 'sessions-link' })).toMatchObject({ isError: false }); // the link itself is the user's file
  });

  it('exec runs in the project root and reports the exit code', async () => {
    const result = await call('exec', { command: 'pwd; echo oops >&2; exit 3' });
    expect(result.forModel).toBe(`${repo.root}\noops\n[exit code 3]`);
    expect(result.isError).toBe(true);
    expect((await call('exec', { command: 'true' })).forModel).toBe('[exit code 0]');
  });

  it('exec truncates a large output and says so', async () => {
    const result = await call('exec', { command: 'seq 1 5000' });
    expect(result.forModel).toMatch(/\[output truncated: \d+ characters; showing the first 100 and the last 100\]/);
    expect(result.forModel).toContain('\n5000\n');
    expect(result.forModel.length).toBeLessThan(400);
  });

  it('exec is killed at its time limit, and by an abort', async () => {
    const slow = createTools({ execTimeoutMs: 300 }).find((tool) => tool.name === 'exec')!;
    const timedOut = await slow.run({ command: 'sleep 30' }, { root: repo.root });
    expect(timedOut).toMatchObject({ isError: true });
    expect(timedOut.forModel).toMatch(/\[killed: no exit within 300 ms\]$/);
    const controller = new AbortController();
    const pending = call('exec', { command: 'echo started; sleep 30' }, controller.signal);
    controller.abort();
    expect((await pending).forModel).toMatch(/\[killed: the turn was aborted\]$/);
  });

  it('bad arguments go back to the model as a result it can fix', async () => {
    expect((await call('write', { path: 'x.txt' })).forModel).toMatch(/^error: invalid arguments for write: content: /);
    expect((await call('write', '{"path": "x.txt", "content": ')).forModel).toMatch(/^error: the arguments are not valid JSON/);
    expect((await call('delete_everything', {})).forModel).toMatch(/^error: unknown tool "delete_everything"; the tools are: read, write/);
  });

  describe('confinement: nothing outside the project can be read or written', () => {
    beforeEach(async () => {
      await fs.symlink(path.join(outside, 'secret.txt'), file('link-out.txt'));
      await fs.symlink(outside, file('dir-out'));
      await fs.mkdir(file('real-dir'));
      await fs.writeFile(file('real-dir/inner.txt'), 'inner');
      await fs.symlink(file('real-dir'), file('dir-in'));
    });

    it.each([
      ['read ../', 'read', () => ({ path: `../../${path.basename(outside)}/secret.txt` })],
      ['read absolute', 'read', () => ({ path: path.join(outside, 'secret.txt') })],
      ['read a symlink pointing out', 'read', () => ({ path: 'link-out.txt' })],
      ['read through a symlinked folder pointing out', 'read', () => ({ path: 'dir-out/secret.txt' })],
      ['write ../', 'write', () => ({ path: '../escape.txt', content: 'x' })],
      ['write absolute', 'write', () => ({ path: path.join(outside, 'new.txt'), content: 'x' })],
      ['write through a symlink pointing out', 'write', () => ({ path: 'link-out.txt', content: 'pwned' })],
      ['write through a symlinked folder pointing out', 'write', () => ({ path: 'dir-out/secret.txt', content: 'pwned' })],
      ['edit through a symlink pointing out', 'edit', () => ({ path: 'link-out.txt', old: 'outside', new: 'pwned' })],
      ['batch_edit absolute', 'batch_edit', () => ({ path: path.join(outside, 'secret.txt'), edits: [{ old: 'outside', new: 'pwned' }] })],
      ['rm absolute', 'rm', () => ({ path: path.join(outside, 'secret.txt') })],
      ['rm through a symlinked folder', 'rm', () => ({ path: 'dir-out/secret.txt' })],
      ['rename out of the project', 'rename', () => ({ from: 'README.md', to: '../stolen.md' })],
      ['rename from outside', 'rename', () => ({ from: path.join(outside, 'secret.txt'), to: 'here.txt' })],
      ['mkdir outside', 'mkdir', () => ({ path: '../new-dir' })],
      ['copy from a symlink pointing out', 'copy', () => ({ from: 'link-out.txt', to: 'copy.txt' })],
      ['copy into a symlinked folder pointing out', 'copy', () => ({ from: 'README.md', to: 'dir-out/readme.md' })],
    ])('%s is refused as a tool result', async (_name, tool, args) => {
      const result = await call(tool, args());
      expect(result.isError).toBe(true);
      expect(result.forModel).toMatch(/outside the project root|refus/);
      expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
      expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
      expect(await fs.readdir(path.dirname(repo.root))).not.toContain('escape.txt');
    });

    it('a symlinked folder inside the project works like the folder', async () => {
      expect((await call('read', { path: 'dir-in/inner.txt' })).forModel).toBe('inner');
      expect((await call('write', { path: 'dir-in/made.txt', content: 'made' })).isError).toBe(false);
      expect(await readText('real-dir/made.txt')).toBe('made');
      expect((await call('edit', { path: 'dir-in/inner.txt', old: 'inner', new: 'edited' })).isError).toBe(false);
      expect(await readText('real-dir/inner.txt')).toBe('edited');
    });

    it('rm of a symlink pointing out removes the link, never its target', async () => {
      expect((await call('rm', { path: 'link-out.txt' })).forModel).toBe('removed symlink link-out.txt');
      await expect(fs.lstat(file('link-out.txt'))).rejects.toThrow();
      expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    });
  });
});
