import { describe, expect, it } from 'vitest';
import { checkDocument, checksPassed } from '../../../src/handoff/checks/run-checks.js';
import { describeChecks } from '../../../src/handoff/checks/describe-checks.js';
import { checkSections } from '../../../src/handoff/checks/sections-check.js';
import { checkFacts } from '../../../src/handoff/checks/facts-check.js';
import { checkFiles } from '../../../src/handoff/checks/files-check.js';
import { checkFirstSteps, type CommandEnvironment } from '../../../src/handoff/checks/first-steps-check.js';
import { sectionHeadings } from '../../../src/handoff/parse-skill.js';
import type { Facts } from '../../../src/probe/facts.js';
import { promises as fs } from 'node:fs';

const SKILL_BODY = await fs.readFile(new URL('../../../skills/handoff/SKILL.md', import.meta.url), 'utf8');
const SECTIONS = sectionHeadings(SKILL_BODY.split('---').slice(2).join('---'));

const FACTS: Facts = {
  capturedAt: '2026-12-03T06:00:00.000Z',
  root: '/repo',
  git: {
    known: true,
    value: {
      branch: 'main',
      head: { sha: 'abcdef1234567890abcdef1234567890abcdef12', shortSha: 'abcdef1', subject: 'lexer: tokens' },
      staged: ['src/lexer.ts'],
      unstaged: [],
      untracked: ['notes.md'],
      upstream: 'origin/main',
      ahead: 2,
      behind: 0,
      operation: null,
    },
  },
  ports: { known: true, value: [{ pid: 4242, command: 'node', port: 3000, address: '127.0.0.1' }] },
};

const ENVIRONMENT: CommandEnvironment = {
  programExists: (name) => ['git', 'npm', 'npx', 'cat', 'tail', 'ls', 'cd', 'rm'].includes(name),
  pathExists: (file) =>
    ['src', 'src/lexer.ts', 'test', 'test/lexer.test.ts', 'scripts', 'scripts/dev.sh', 'package.json'].includes(file.replace(/^\.\//, '')),
};

const CHANGED = ['src/lexer.ts', 'test/lexer.test.ts'];

function document(overrides: Partial<Record<string, string>> = {}, drop: string[] = []): string {
  const bodies: Record<string, string> = {
    '💬': 'The user asked: make the lexer accept unicode identifiers. I stopped after the tests.',
    '🎯': 'Unicode identifiers in the lexer; `npm test` passes.',
    '📊': 'Branch: `main`, tracking `origin/main` (2 ahead, 0 behind). Commit: `abcdef1`. The dev server is listening on port 3000.',
    '✅': 'Edited `src/lexer.ts`; added `test/lexer.test.ts`.',
    '📋': 'none',
    '🧠': 'Chose \\p{L} over a hand-made table (the table was a dead end).',
    '⚠️': 'Keep the public API stable.',
    '📁': '- `src/lexer.ts` — changed\n- `test/lexer.test.ts` — new',
    '🔔': '```sh\nnpm test -- test/lexer.test.ts\ngit status --short\n```',
  };
  const parts = ['# Handoff', ''];
  for (const heading of SECTIONS) {
    const marker = [...Object.keys(bodies)].find((key) => heading.startsWith(key))!;
    if (drop.includes(marker)) continue;
    parts.push(`## ${heading}`, '', overrides[marker] ?? bodies[marker]!, '');
  }
  return parts.join('\n');
}

function check(text: string) {
  return checkDocument({ document: text, sections: SECTIONS, evidence: { changedFiles: CHANGED }, facts: FACTS, environment: ENVIRONMENT });
}

describe('fidelity checks on a document (F1–F4)', () => {
  it('F1 F2 F3 F4 a correct document passes every check', () => {
    const checks = check(document());
    expect(checks).toEqual({ sections: [], facts: [], files: [], commands: [] });
    expect(checksPassed(checks)).toBe(true);
    expect(describeChecks(checks)).toBe('checked ✓');
  });

  it('F1 a missing section, an empty one and one out of order are each named', () => {
    expect(checkSections(document({}, ['⚠️']), SECTIONS)).toEqual(['section "⚠️ Constraints and preferences" is missing']);
    expect(checkSections(document({ '📋': '   ' }), SECTIONS)).toEqual([
      'section "📋 Not done" is empty (write "none" if there is nothing to say)',
    ]);
    const swapped = document()
      .replace('## 🎯 Task goal', '## TMP')
      .replace('## 💬 Conversation breakpoint', '## 🎯 Task goal')
      .replace('## TMP', '## 💬 Conversation breakpoint');
    expect(checkSections(swapped, SECTIONS)).toEqual([
      'section "🎯 Task goal" is out of order (it must come after "💬 Conversation breakpoint")',
    ]);
  });

  it('F1 a heading matches by its marker, whatever its words; without a marker, by its words', () => {
    const renamed = document()
      .replace('## 🔔 First steps for the successor', '## 🔔 First steps')
      .replace('## 📊 Current state', '## 📊 État actuel');
    expect(checkSections(renamed, SECTIONS)).toEqual([]);
    expect(checkSections('# Handoff\n\n## Next steps for you\n\nnone\n', ['Next steps'])).toEqual([]);
    expect(checkSections('# Handoff\n\n## Steps\n\nnone\n', ['Next steps'])).toEqual(['section "Next steps" is missing']);
    // A fenced `## ` line is not a heading.
    expect(checkSections('# Handoff\n\n```\n## 🎯 Task goal\n```\n', ['🎯 Task goal'])).toEqual(['section "🎯 Task goal" is missing']);
  });

  it('F2 a wrong branch, a wrong commit, wrong ahead/behind and an invented port are each named', () => {
    const wrong = document({
      '📊': 'Branch: `master`. Commit: `1234567`. The branch is 5 commits ahead. A server is listening on port 8080.',
    });
    expect(checkFacts(wrong, FACTS)).toEqual([
      'the document says branch `master`; the branch is `main`',
      'the document says commit `1234567`; the commit is `abcdef1`',
      'the document says 5 ahead; the branch is 2 ahead of `origin/main`',
      'the document says port 8080; it was not listening (listening: 3000)',
    ]);
    expect(checkFacts(document({ '📊': '- Listening ports (1): `999 node :8080`' }), FACTS)).toHaveLength(1);
  });

  it('F2 quotes, commands and facts that were not captured state nothing', () => {
    const quoted = document({
      '💬': '> create branch `feature-x` and run it on port 9999\n\n```sh\nnpm run dev -- --port 9999\n```\nRan `curl localhost:9999/health` twice.',
    });
    expect(checkFacts(quoted, FACTS)).toEqual([]);
    expect(
      checkFacts('Branch: `master`, port 8080 listening', {
        ...FACTS,
        git: { known: false, why: 'not a git repo' },
        ports: { known: false, why: 'no /proc' },
      }),
    ).toEqual([]);
  });

  it('F3 a file changed by the session but not named is reported, by its path', () => {
    const forgot = document({ '✅': 'Edited `src/lexer.ts`.', '📁': '- `src/lexer.ts`', '🔔': '```sh\nnpm test\n```' });
    expect(checkFiles(forgot, CHANGED)).toEqual(['`test/lexer.test.ts` was changed in this session but the document does not name it']);
    expect(checkFiles('nothing', CHANGED)).toEqual([
      '`src/lexer.ts` and `test/lexer.test.ts` were changed in this session but the document does not name them',
    ]);
  });

  it('F3 a file the file index names that exists neither in the repo nor anywhere in the session is reported; a removed or a mentioned one is not', () => {
    const index = document({
      '📁': '- `src/lexer.ts` — changed\n- `src/ghost.ts` — the new parser\n- `old/removed.ts` — removed\n- docs/notes.md — spoken of\n- `README.md`',
    });
    const known = { named: ['src/lexer.ts', 'old/removed.ts', 'docs/notes.md'], pathExists: (file: string) => file === 'README.md' };
    expect(checkFiles(index, [], known)).toEqual([
      'the file index names `src/ghost.ts`, which exists neither in the repo nor anywhere in this session',
    ]);
    expect(checkFiles(index, [], { ...known, named: [...known.named, 'src/ghost.ts'] })).toEqual([]);
    // Without what the session named, only the changed files are checked.
    expect(checkFiles(index, [])).toEqual([]);
  });

  it('F4 too many commands, a missing program, a missing script or path, and destructive commands are each named', () => {
    const steps = (body: string) => checkFirstSteps(document({ '🔔': body }), SECTIONS, ENVIRONMENT);
    expect(steps('```sh\ngit status\ngit log\nnpm test\nls\n```')).toEqual([
      'section "🔔 First steps for the successor" has 4 commands; at most 3',
    ]);
    expect(steps('1. `frobnicate --all`')).toEqual([
      '`frobnicate --all`: the program `frobnicate` is not on PATH nor a script in the repo',
    ]);
    expect(steps('```\n./scripts/missing.sh\ncat src/nope.ts\n```')).toEqual([
      '`./scripts/missing.sh`: the script `./scripts/missing.sh` does not exist in the repo',
      '`cat src/nope.ts`: the path `src/nope.ts` does not exist in the repo',
    ]);
    for (const destructive of [
      'rm -rf build',
      'git reset --hard origin/main',
      'git clean -fdx',
      'git push --force origin main',
      'git checkout -- .',
      'cd src && git -C .. stash drop',
    ]) {
      const problems = steps(`\`\`\`sh\n${destructive}\n\`\`\``);
      expect(
        problems.some((problem) => problem.includes('is destructive')),
        destructive,
      ).toBe(true);
    }
    // Revisions and remote branches are not repo paths; a script that exists is fine.
    expect(steps('```\ngit log origin/main..HEAD\n./scripts/dev.sh\ngit diff HEAD~1 -- src/lexer.ts\n```')).toEqual([]);
    expect(steps('none')).toEqual([]);
  });
});
