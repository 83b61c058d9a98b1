// Which handoff documents git already holds, read from a real repository (the daemon's other
// small parts, in-process, are in daemon-parts.fast.test.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedHandoffs } from '../../src/daemon/committing/handoff-history.js';
import { makeTempRepo } from '../support/temp-repo.js';

describe('D3 handoff documents found at startup', () => {
  it('D3 committedHandoffs: only docs at HEAD and clean in the work tree, each with the latest commit that touched it', async () => {
    await using repo = await makeTempRepo();
    const dir = path.join(repo.root, '.ai-zen', 'handoffs');
    await fs.mkdir(dir, { recursive: true });
    const write = (name: string, text: string) => fs.writeFile(path.join(dir, name), text);
    await write('a.md', 'a\n');
    await write('c.md', 'c\n');
    await write('d.md', 'd\n');
    await repo.git('add', '.ai-zen/handoffs');
    await repo.git('commit', '-q', '-m', 'first');
    await write('a.md', 'a, second version\n');
    await repo.git('commit', '-q', '-am', 'second');
    const second = (await repo.git('rev-parse', 'HEAD')).trim();
    await write('b.md', 'untracked\n');
    await write('c.md', 'modified, not committed\n');
    await repo.git('rm', '-q', '.ai-zen/handoffs/d.md');
    await repo.git('commit', '-q', '-m', 'third');
    const found = await committedHandoffs(
      repo.root,
      ['a', 'b', 'c', 'd'].map((name) => `.ai-zen/handoffs/${name}.md`),
    );
    expect([...found]).toEqual([['.ai-zen/handoffs/a.md', second]]);
  });
});
