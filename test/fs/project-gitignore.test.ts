// `.ai-zen/.gitignore`: what ai-zen keeps out of git in a project, with a real git.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureGitignore, GITIGNORE } from '../../src/fs/project-gitignore.js';
import { silentLogger } from '../../src/log/logger.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

/** The .gitignore every ai-zen before this one wrote. */
const EARLIER = `# Written by ai-zen. Sessions and logs stay local; handoffs/ is meant to be committed.
sessions/
logs/
latest-session.json
`;

describe('.ai-zen/.gitignore', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;
  const gitignore = () => path.join(paths.aiZen, '.gitignore');

  beforeEach(async () => {
    repo = await makeTempRepo();
    paths = projectPaths(repo.root);
    await fs.mkdir(paths.aiZen, { recursive: true });
  });
  afterEach(() => repo.cleanup());

  const staged = async () => {
    await repo.git('add', '-A');
    return (await repo.git('diff', '--cached', '--name-only')).split('\n').filter(Boolean);
  };

  it('a file ai-zen is in the middle of writing (its temporary name) is never taken by git add -A; the document is', async () => {
    expect(await ensureGitignore(paths, silentLogger())).toBe(true);
    const handoffs = path.join(paths.aiZen, 'handoffs');
    await fs.mkdir(handoffs);
    // safe-write's temporary names: `.<name>.<pid>-<hex>.tmp` beside the file it becomes.
    await fs.writeFile(path.join(paths.aiZen, '.latest-session.json.8704-e816b4f67fc6.tmp'), '{}');
    await fs.writeFile(path.join(handoffs, '.20261203-120000-00000001.md.8704-0123456789ab.tmp'), '# half');
    await fs.writeFile(path.join(handoffs, '20261203-120000-00000001.md'), '# a document\n');
    // The .gitignore ignores itself too: ai-zen writes it wherever it runs, and it never sits untracked in `git status`.
    expect(await staged()).toEqual(['.ai-zen/handoffs/20261203-120000-00000001.md']);
  });

  it('a .gitignore an earlier ai-zen wrote is brought up to date; one the user changed is left as it is', async () => {
    await fs.writeFile(gitignore(), EARLIER);
    expect(await ensureGitignore(paths, silentLogger())).toBe(true);
    expect(await fs.readFile(gitignore(), 'utf8')).toBe(GITIGNORE);
    expect(await ensureGitignore(paths, silentLogger())).toBe(false); // up to date: nothing to write

    const theirs = `${EARLIER}*.bak\n`;
    await fs.writeFile(gitignore(), theirs);
    expect(await ensureGitignore(paths, silentLogger())).toBe(false);
    expect(await fs.readFile(gitignore(), 'utf8')).toBe(theirs);
  });
});
