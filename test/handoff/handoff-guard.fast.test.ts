import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HandoffGuardPlugin } from '../../src/handoff/handoff-guard.js';

let base: string;
let root: string;
let guard: HandoffGuardPlugin;
const doc = { relative: '.ai-zen/handoffs/20261202-105418-abcdef12.md', absolute: '' };

const call = (name: string, args: unknown) => guard.beforeToolCall({ id: 'call_1', name, args });

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-guard-')));
  root = path.join(base, 'project');
  await fs.mkdir(path.join(root, '.ai-zen', 'handoffs'), { recursive: true });
  await fs.mkdir(path.join(root, 'src'));
  await fs.mkdir(path.join(base, 'outside'));
  await fs.symlink(path.join(root, 'src'), path.join(root, 'linked-src'));
  await fs.symlink(path.join(root, '.ai-zen', 'handoffs'), path.join(root, 'handoffs-link'));
  guard = new HandoffGuardPlugin({ root, doc: { ...doc, absolute: path.join(root, doc.relative) } });
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe('HandoffGuardPlugin (R12, R13)', () => {
  it('R12 allows write to exactly the document path, also spelled ./, with .. or absolute', async () => {
    expect(await call('write', { path: doc.relative, content: 'x' })).toBeUndefined();
    expect(await call('write', { path: `./${doc.relative}`, content: 'x' })).toBeUndefined();
    expect(await call('write', { path: `src/../${doc.relative}`, content: 'x' })).toBeUndefined();
    expect(await call('write', { path: path.join(root, doc.relative), content: 'x' })).toBeUndefined();
  });

  it('R12 refuses edit, batch_edit, rm, rename, mkdir and copy, with a reason that says what is allowed', async () => {
    for (const [name, args] of [
      ['edit', { path: doc.relative, old: 'a', new: 'b' }],
      ['batch_edit', { path: 'src/a.ts', edits: [] }],
      ['rm', { path: 'src/a.ts' }],
      ['rename', { from: 'src/a.ts', to: 'src/b.ts' }],
      ['mkdir', { path: 'src/new' }],
      ['copy', { from: 'src/a.ts', to: 'src/b.ts' }],
    ] as const) {
      const verdict = await call(name, args);
      expect(verdict?.refuse, name).toMatch(new RegExp(`\`${name}\` is not allowed`));
      expect(verdict?.refuse).toContain(doc.relative);
    }
  });

  it('R12 refuses a write anywhere else: another file, ../ out of the project, a symlinked folder', async () => {
    for (const target of [
      'src/a.ts',
      '.ai-zen/handoffs/other.md',
      `../outside/${path.basename(doc.relative)}`,
      `linked-src/${path.basename(doc.relative)}`,
      // Lands on the document's real path, but not by its name: refused too, to keep the rule simple.
      `handoffs-link/${path.basename(doc.relative)}`,
      path.join(base, 'outside', 'x.md'),
    ]) {
      const verdict = await call('write', { path: target, content: 'x' });
      expect(verdict?.refuse, target).toMatch(/is not allowed while handing off/);
    }
  });

  it('R12 refuses the document path when the handoffs folder is a symlink leading elsewhere', async () => {
    await fs.rm(path.join(root, '.ai-zen', 'handoffs'), { recursive: true });
    await fs.symlink(path.join(root, 'src'), path.join(root, '.ai-zen', 'handoffs'));
    expect((await call('write', { path: doc.relative, content: 'x' }))?.refuse).toMatch(/not allowed/);
  });

  it('R13 does not block exec or read', async () => {
    expect(await call('exec', { command: 'echo hi > src/a.ts' })).toBeUndefined();
    expect(await call('read', { path: 'src/a.ts' })).toBeUndefined();
  });
});
