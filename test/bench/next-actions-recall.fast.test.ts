// The next-actions measurement of `npm run bench:fidelity` is itself right — on a
// hand-made prefix and suffix whose recall is known, it finds exactly the items it should, splits
// them into seen before the cut and new after it, and counts a document's naming of each.
import { describe, expect, it } from 'vitest';
import { recallAtCut, stepsOf, touchedBy, type Step, type TranscriptMessage } from '../../bench/next-actions.js';

const ROOT = '/work/repo';
const PORT_COMMAND = 'PORT=43817 node src/server.js & node scripts/ping.js 43817';

const call = (id: string, name: string, args: object): TranscriptMessage[] => [
  { message: { role: 'assistant', content: null, tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] } },
  { message: { role: 'tool', tool_call_id: id, content: 'ok\n[exit code 0]' } },
];

/** Steps 1–4: the prefix; 5–8: the suffix. */
const TRANSCRIPT: TranscriptMessage[] = [
  { message: { role: 'user', content: 'Make a server.' } },
  ...call('1', 'write', { path: 'src/server.js' }),
  ...call('2', 'Read', { file_path: `${ROOT}/README.md` }),
  ...call('3', 'exec', { command: 'node --test test/server.test.js' }),
  ...call('4', 'exec', { command: PORT_COMMAND }),
  // After the cut: seen items (src/server.js, the test command and its file, the port command, its
  // files and port) and new ones (src/routes.js, `git status`, port 5000).
  ...call('5', 'edit', { path: `${ROOT}/src/server.js` }),
  ...call('6', 'exec', { command: 'node  --test\ntest/server.test.js' }),
  ...call('7', 'write', { path: 'src/routes.js' }),
  ...call('8', 'exec', { command: 'git status && curl http://localhost:5000/health' }),
  // A call with no result is not a step (the transcript was cut while it ran).
  { message: { role: 'assistant', content: null, tool_calls: [{ id: '9', function: { name: 'exec', arguments: '{"command":"ls"}' } }] } },
];

/** Names src/server.js, test/server.test.js (inside the test command) and the test command; not README.md, the port command or its port. */
const DOCUMENT = [
  '# Handoff',
  '',
  '- `src/server.js` — write',
  '- `node --test test/server.test.js` — exit 0',
  '- `src/server.jsx` and scripts/ping.json: other files, near-misses of names the next steps touch',
].join('\n');

describe('next-actions recall, the measurement', () => {
  const steps = stepsOf(TRANSCRIPT);
  const before = steps.slice(0, 4);
  const next = steps.slice(4, 9);

  it('a step is a tool call with its result; the files, commands and ports it touches are read from its arguments and command words', () => {
    expect(steps).toHaveLength(8);
    const touched = touchedBy(before, ROOT);
    expect([...touched.files].sort()).toEqual(['README.md', 'scripts/ping.js', 'src/server.js', 'test/server.test.js']);
    expect([...touched.commands]).toEqual(['node --test test/server.test.js', PORT_COMMAND]);
    expect([...touched.ports]).toEqual(['43817']);
    expect([...touchedBy(next, ROOT).ports]).toEqual(['5000']);
  });

  it('of the next steps’ items, those seen before the cut and those new after it are counted apart, each found only when the document names it', () => {
    const recall = recallAtCut(DOCUMENT, before, next, ROOT);
    // Seen files of steps 5–8: src/server.js, test/server.test.js (named); new: src/routes.js (not).
    expect(recall.files.seen).toEqual({ found: 2, total: 2 });
    expect(recall.files.new).toEqual({ found: 0, total: 1 });
    // The test command (whitespace as the document's one-line span shows it) is seen and named; `git status && curl …` is new.
    expect(recall.commands.seen).toEqual({ found: 1, total: 1 });
    expect(recall.commands.new).toEqual({ found: 0, total: 1 });
    expect(recall.ports.seen).toEqual({ found: 0, total: 0 });
    expect(recall.ports.new).toEqual({ found: 0, total: 1 });
  });

  it('a seen item the document leaves out is counted missed and listed; a near-miss name (server.jsx, ping.json) is not a hit', () => {
    const nextWithPort: Step[] = [...next, { tool: 'exec', args: { command: PORT_COMMAND } }];
    const recall = recallAtCut(DOCUMENT, before, nextWithPort, ROOT);
    expect(recall.files.seen).toEqual({ found: 2, total: 3 });
    expect(recall.files.missed).toEqual(['scripts/ping.js']);
    expect(recall.commands.seen).toEqual({ found: 1, total: 2 });
    expect(recall.commands.missed).toEqual([PORT_COMMAND]);
    expect(recall.ports.seen).toEqual({ found: 0, total: 1 });
    expect(recall.ports.missed).toEqual(['43817']);
    // Naming them turns each into a hit.
    const fuller = `${DOCUMENT}\n- \`${PORT_COMMAND}\` — exit 0`;
    const full = recallAtCut(fuller, before, nextWithPort, ROOT);
    expect([full.files.seen, full.commands.seen, full.ports.seen]).toEqual([
      { found: 3, total: 3 },
      { found: 2, total: 2 },
      { found: 1, total: 1 },
    ]);
  });
});
