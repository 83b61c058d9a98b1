import { describe, expect, it } from 'vitest';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import type { Facts, GitFacts } from '../../src/probe/facts.js';
import { renderFacts } from '../../src/probe/render-facts.js';

const git: GitFacts = {
  branch: 'feature/login',
  head: { sha: 'a'.repeat(40), shortSha: 'aaaaaaa', subject: 'Add the login form' },
  staged: ['src/login.ts'],
  unstaged: ['src/app.ts', 'README.md'],
  untracked: ['notes/'],
  upstream: 'origin/feature/login',
  ahead: 2,
  behind: 0,
  operation: null,
};

const facts = (overrides: Partial<Facts> = {}): Facts => ({
  capturedAt: '2025-03-04T05:06:07.000Z',
  root: '/work/project',
  git: { known: true, value: git },
  ports: { known: true, value: [{ pid: 4242, command: 'node', port: 3000, address: '127.0.0.1' }] },
  ...overrides,
});

describe('renderFacts', () => {
  it('X2 renders branch, commit, grouped dirty files, upstream and ports as a compact block', () => {
    expect(renderFacts(facts())).toBe(
      [
        '**Facts** captured by code at 2025-03-04T05:06:07.000Z (git and the OS, not memory):',
        '',
        '- Branch: `feature/login`, tracking `origin/feature/login` (2 ahead, 0 behind)',
        '- Commit: `aaaaaaa` Add the login form',
        '- Staged (1): `src/login.ts`',
        '- Unstaged (2): `src/app.ts`, `README.md`',
        '- Untracked (1): `notes/`',
        '- Listening ports (1): `4242 node 127.0.0.1:3000`',
        '',
      ].join('\n'),
    );
  });

  it('X2 says "unknown (why)" for a probe that failed', () => {
    const text = renderFacts(
      facts({ git: { known: false, why: 'not a git repository' }, ports: { known: false, why: 'cannot read /proc/net/tcp' } }),
    );
    expect(text).toContain('- Git: unknown (not a git repository)');
    expect(text).toContain('- Listening ports: unknown (cannot read /proc/net/tcp)');
  });

  it('X2 caps long file lists with a count, and shows detached, operation, clean and no ports', () => {
    const many = Array.from({ length: 25 }, (_, index) => `file-${index}.txt`);
    const text = renderFacts(
      facts({
        git: { known: true, value: { ...git, branch: null, untracked: many, operation: 'rebase', conflicted: ['x.ts'] } },
        ports: { known: true, value: [] },
      }),
      { maxFilesPerGroup: 3 },
    );
    expect(text).toContain('- Branch: detached HEAD');
    expect(text).toContain('- In progress: rebase');
    expect(text).toContain('- Conflicted (1): `x.ts`');
    expect(text).toContain('- Untracked (25): `file-0.txt`, `file-1.txt`, `file-2.txt`, … and 22 more');
    expect(text).toContain('- Listening ports: none from processes in this project');

    const clean = renderFacts(
      facts({ git: { known: true, value: { ...git, staged: [], unstaged: [], untracked: [], head: null, upstream: null } } }),
    );
    expect(clean).toContain('- Working tree: clean');
    expect(clean).toContain('- Commit: none yet (no commits)');
    expect(clean).toContain('- Branch: `feature/login`, no upstream');
  });

  it('X2 keeps odd file names inside their code span', () => {
    const text = renderFacts(facts({ git: { known: true, value: { ...git, staged: ['a`b.txt', 'line\nbreak.txt'] } } }));
    expect(text).toContain('- Staged (2): ``a`b.txt``, `line\\nbreak.txt`');
  });

  it('X2 a probe that throws becomes unknown, the capture still succeeds', async () => {
    const provider = createFactsProvider({
      root: '/nowhere',
      captureGit: () => Promise.reject(new Error('boom')),
      capturePorts: () => Promise.resolve({ known: true, value: [] }),
    });
    const captured = await provider.capture();
    expect(captured.git).toEqual({ known: false, why: 'boom' });
  });
});
