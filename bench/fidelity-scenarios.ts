// The fidelity benchmark's scenarios: scripted sessions whose ground truth is known by
// construction — every file a tool changes, every command with the exit status it must have, the
// user's requests and the rules in them, and the git/port state the repo is put in.
import type { ScriptedReply } from './scripted-model.js';

export interface Turn {
  readonly request: string;
  /** The model's replies for this turn: tool-call steps, then a final text. */
  readonly steps: readonly ScriptedReply[];
}

export interface Scenario {
  readonly name: string;
  readonly language: string;
  readonly turns: readonly Turn[];
  /** Sentences of the requests that state a rule (must appear under ⚠️). */
  readonly constraints: readonly string[];
  /** A decision and the dead end before it, said by the model (only a model can carry it). */
  readonly decision?: string;
  /** Commands and the exit status each must have. */
  readonly commands: Readonly<Record<string, number>>;
  /** Repo state set up before the handoff. */
  readonly ahead?: number;
  readonly staged?: readonly string[];
  readonly untracked?: readonly string[];
  readonly listen?: boolean;
  readonly branch?: string;
  readonly maxContextTokens?: number;
}

const write = (path: string, content = `// ${path}\nexport const value = 1;\n`) => ({ name: 'write', args: { path, content } });
const edit = (path: string, from: string, to: string) => ({ name: 'edit', args: { path, old: from, new: to } });
const rename = (from: string, to: string) => ({ name: 'rename', args: { from, to } });
const rm = (path: string) => ({ name: 'rm', args: { path } });
const exec = (command: string) => ({ name: 'exec', args: { command } });
const steps =
  (...calls: { name: string; args: unknown }[][]) =>
  (final: string): ScriptedReply[] => [...calls.map((toolCalls) => ({ toolCalls })), { text: final }];

const FAILING_TEST = 'node test/check.js';

function longTurns(count: number): Turn[] {
  const turns: Turn[] = [];
  for (let index = 0; index < count; index += 1) {
    const file = `src/module-${String(index).padStart(3, '0')}.ts`;
    turns.push({
      request: `Step ${index + 1}: add ${file} and check it.`,
      steps: steps(
        [write(file, `export const m${index} = ${index};\n${'// padding line for a long session\n'.repeat(40)}`)],
        [exec('ls src')],
        [exec('true')],
      )(`Added ${file}.`),
    });
  }
  return turns;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'edit-and-test',
    language: 'en',
    turns: [
      {
        request: 'Create a lexer in src/lexer.ts with a test.',
        steps: steps([write('src/lexer.ts'), write('test/lexer.test.ts')], [exec('true')])('Lexer and test written; the check passes.'),
      },
      { request: 'Rename value to tokens in the lexer.', steps: steps([edit('src/lexer.ts', 'value', 'tokens')])('Renamed.') },
    ],
    constraints: [],
    commands: { true: 0 },
  },
  {
    name: 'failing-test',
    language: 'en',
    turns: [
      {
        request: 'Add a parser and run the check script.',
        steps: steps([write('src/parser.ts')], [exec(FAILING_TEST)])('The parser is in; test/check.js fails (exit 1).'),
      },
      {
        request: 'Leave it failing for now, just note why.',
        steps: steps([write('NOTES.md', 'check fails: parser returns null\n')])('Noted in NOTES.md.'),
      },
    ],
    constraints: ['Leave it failing for now, just note why.'],
    commands: { [FAILING_TEST]: 1 },
  },
  {
    name: 'decision-dead-end',
    language: 'en',
    turns: [
      {
        request: 'Make the cache faster.',
        steps: steps(
          [write('src/cache.ts')],
          [exec('false')],
          [edit('src/cache.ts', 'value', 'lru')],
          [exec('true')],
        )('An LRU map beat the WeakMap attempt (WeakMap cannot key strings: dead end). Kept LRU.'),
      },
    ],
    constraints: [],
    decision: 'WeakMap',
    commands: { false: 1, true: 0 },
  },
  {
    name: 'constraint',
    language: 'en',
    turns: [
      {
        request: 'Refactor src/api.ts. Keep the public API stable.',
        steps: steps([write('src/api.ts'), write('src/internal.ts')])('Refactored behind the same exports.'),
      },
      { request: 'Add docs. Never touch the generated folder.', steps: steps([write('docs/api.md', '# API\n')])('Docs added.') },
    ],
    constraints: ['Keep the public API stable.', 'Never touch the generated folder.'],
    commands: {},
  },
  {
    name: 'listening-port',
    language: 'en',
    turns: [
      {
        request: 'Start the dev server and add a health route.',
        steps: steps(
          [write('server.cjs', "require('http').createServer((q,s)=>s.end('ok')).listen(0)\n")],
          [exec('ls')],
        )('Health route added; the dev server is running.'),
      },
    ],
    constraints: [],
    commands: { ls: 0 },
    listen: true,
  },
  {
    name: 'staged-untracked',
    language: 'en',
    turns: [
      {
        request: 'Split utils into two files.',
        steps: steps([write('src/strings.ts'), write('src/numbers.ts')], [rm('README.md')])('Split; README.md removed as asked earlier.'),
      },
    ],
    constraints: [],
    commands: {},
    staged: ['src/strings.ts'],
    untracked: ['scratch.txt'],
  },
  {
    name: 'branch-ahead',
    language: 'en',
    turns: [
      {
        request: 'Commit the feature on the feature branch. Only commit to feature/csv.',
        steps: steps([write('src/csv.ts')], [exec('git status --short')])('Written; ready to commit.'),
      },
    ],
    constraints: ['Only commit to feature/csv.'],
    commands: { 'git status --short': 0 },
    branch: 'feature/csv',
    ahead: 2,
  },
  {
    name: 'rename-remove',
    language: 'en',
    turns: [
      {
        request: 'Move the config loader to src/config/load.ts and drop the old one.',
        steps: steps(
          [write('src/loader.ts')],
          [rename('src/loader.ts', 'src/load.ts')],
          [rm('src/load.ts')],
          [write('src/config/load.ts')],
        )('Moved.'),
      },
    ],
    constraints: [],
    commands: {},
  },
  {
    name: 'long-session',
    language: 'en',
    turns: [
      { request: 'Build the modules one by one. Always run the check after each.', steps: steps([exec('true')])('Starting.') },
      ...longTurns(100),
    ],
    constraints: ['Always run the check after each.'],
    commands: { true: 0, 'ls src': 0 },
    maxContextTokens: 24_000,
  },
  {
    name: 'german',
    language: 'de',
    turns: [
      {
        request: 'Schreibe einen Tokenizer in src/tokenizer.ts.',
        steps: steps([write('src/tokenizer.ts')], [exec('true')])('Tokenizer geschrieben.'),
      },
      {
        request: 'Ändere niemals die Dateien in fixtures. Füge einen Test hinzu.',
        steps: steps([write('test/tokenizer.test.ts')], [exec(FAILING_TEST)])('Test hinzugefügt; check.js schlägt fehl.'),
      },
    ],
    constraints: ['Ändere niemals die Dateien in fixtures.'],
    commands: { true: 0, [FAILING_TEST]: 1 },
  },
  {
    name: 'chinese',
    language: 'zh',
    turns: [
      {
        request: '在 src/router.ts 中添加路由。不要修改公共接口。',
        steps: steps([write('src/router.ts'), edit('README.md', 'bench repo', 'router')])('路由已添加。'),
      },
      { request: '运行检查。', steps: steps([exec('false')])('检查失败。') },
    ],
    constraints: ['不要修改公共接口。'],
    commands: { false: 1 },
  },
  {
    name: 'everything',
    language: 'en',
    turns: [
      {
        request: 'Add a CSV export in src/export.ts. Do not change the database schema.',
        steps: steps([write('src/export.ts'), write('test/export.test.ts')], [exec(FAILING_TEST)])('Export written; the check fails.'),
      },
      {
        request: 'Use streams, not arrays. Keep memory under 50 MB.',
        steps: steps(
          [edit('src/export.ts', 'value', 'stream')],
          [rename('test/export.test.ts', 'test/csv-export.test.ts')],
          [exec('true')],
        )('Streams (arrays blew memory: dead end).'),
      },
      {
        request: 'Start the preview server and stop there.',
        steps: steps([write('preview.cjs', "require('http').createServer((q,s)=>s.end('ok')).listen(0)\n")])('Preview server started.'),
      },
    ],
    constraints: ['Do not change the database schema.', 'Keep memory under 50 MB.'],
    decision: 'arrays blew memory',
    commands: { [FAILING_TEST]: 1, true: 0 },
    listen: true,
    staged: ['src/export.ts'],
    untracked: ['notes.txt'],
    branch: 'feature/export',
    ahead: 1,
  },
];

/** Files the scripted tool calls change, in order (ground truth for F3 and recall). */
export function changedFiles(scenario: Scenario): string[] {
  const files: string[] = [];
  for (const turn of scenario.turns) {
    for (const step of turn.steps) {
      for (const call of step.toolCalls ?? []) {
        const args = call.args as Record<string, string>;
        for (const key of ['path', 'from', 'to'])
          if (call.name !== 'exec' && typeof args[key] === 'string' && !files.includes(args[key]!)) files.push(args[key]!);
      }
    }
  }
  return files;
}

export function requestsOf(scenario: Scenario): string[] {
  return scenario.turns.map((turn) => turn.request);
}
