import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveInsideRoot } from '../../src/fs/confine.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('confinement to the project root (the tools and the handoff guard)', () => {
  let repo: TempRepo;
  let outside: string;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    outside = path.join(path.dirname(repo.root), 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  });
  afterEach(() => repo.cleanup());

  it('allows a plain relative path and reports where it lands', async () => {
    const result = await resolveInsideRoot(repo.root, 'src/a.ts');
    expect(result).toEqual({ ok: true, absolute: path.join(repo.root, 'src', 'a.ts'), relative: path.join('src', 'a.ts') });
  });

  it('normalises ./ and inner .. that stay inside', async () => {
    await fs.mkdir(path.join(repo.root, 'src'));
    const result = await resolveInsideRoot(repo.root, './src/../b.md');
    expect(result).toEqual({ ok: true, absolute: path.join(repo.root, 'b.md'), relative: 'b.md' });
  });

  it('refuses ../x', async () => {
    const result = await resolveInsideRoot(repo.root, '../outside/secret.txt');
    expect(result.ok).toBe(false);
  });

  it('refuses a .. that climbs out from a subfolder', async () => {
    const result = await resolveInsideRoot(repo.root, 'a/../../outside');
    expect(result.ok).toBe(false);
  });

  it('refuses an absolute path outside the root', async () => {
    expect((await resolveInsideRoot(repo.root, path.join(outside, 'secret.txt'))).ok).toBe(false);
    expect((await resolveInsideRoot(repo.root, '/etc/passwd')).ok).toBe(false);
    expect((await resolveInsideRoot(repo.root, '/')).ok).toBe(false);
  });

  it('allows an absolute path inside the root', async () => {
    const result = await resolveInsideRoot(repo.root, path.join(repo.root, 'x', 'y.txt'));
    expect(result).toEqual({ ok: true, absolute: path.join(repo.root, 'x', 'y.txt'), relative: path.join('x', 'y.txt') });
  });

  it('refuses a symlink that points out of the root', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(repo.root, 'link.txt'));
    expect((await resolveInsideRoot(repo.root, 'link.txt')).ok).toBe(false);
  });

  it('refuses a relative symlink that points out of the root', async () => {
    await fs.symlink('../outside/secret.txt', path.join(repo.root, 'link.txt'));
    expect((await resolveInsideRoot(repo.root, 'link.txt')).ok).toBe(false);
  });

  it('refuses a dangling symlink whose target would be outside', async () => {
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(repo.root, 'dangling.txt'));
    expect((await resolveInsideRoot(repo.root, 'dangling.txt')).ok).toBe(false);
  });

  it('allows a symlinked folder that stays inside, and reports the real location', async () => {
    await fs.mkdir(path.join(repo.root, 'real'));
    await fs.symlink('real', path.join(repo.root, 'alias'));
    const result = await resolveInsideRoot(repo.root, 'alias/file.md');
    expect(result).toEqual({ ok: true, absolute: path.join(repo.root, 'real', 'file.md'), relative: path.join('real', 'file.md') });
  });

  it('refuses a symlinked folder that points out (a symlinked .ai-zen/handoffs)', async () => {
    await fs.mkdir(path.join(repo.root, '.ai-zen'));
    await fs.symlink(outside, path.join(repo.root, '.ai-zen', 'handoffs'));
    const result = await resolveInsideRoot(repo.root, '.ai-zen/handoffs/20260101-000000-abcdefgh.md');
    expect(result.ok).toBe(false);
  });

  it('refuses .. after a symlinked folder the way the kernel resolves it', async () => {
    // alias -> ../outside/deep ; alias/.. is outside/, not the root.
    await fs.mkdir(path.join(outside, 'deep'));
    await fs.symlink(path.join(outside, 'deep'), path.join(repo.root, 'alias'));
    expect((await resolveInsideRoot(repo.root, 'alias/../secret.txt')).ok).toBe(false);
  });

  it('refuses a symlink loop with a reason instead of hanging', async () => {
    await fs.symlink('b', path.join(repo.root, 'a'));
    await fs.symlink('a', path.join(repo.root, 'b'));
    const result = await resolveInsideRoot(repo.root, 'a/x');
    expect(result).toEqual({ ok: false, reason: 'too many levels of symbolic links' });
  });

  it('refuses a NUL byte', async () => {
    expect((await resolveInsideRoot(repo.root, 'a\0b')).ok).toBe(false);
  });
});
