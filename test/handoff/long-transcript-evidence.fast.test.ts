// A long session's transcript is read as a stream that keeps only its latest messages whole: the
// older ones leave their requests and a digest of what their tools did, so the offline document of
// a transcript of any size still lists every command and file, and a line too long to hold is left
// out and said, never gathered.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClaudeTranscript, writeCodexRollout } from '../../bench/big-transcript-fixture.js';
import { readClaudeEvidence } from '../../src/daemon/sources/claude-code/claude-evidence.js';
import { readCodexEvidence } from '../../src/daemon/sources/codex/codex-evidence.js';
import { EARLIER_REQUESTS_CHARACTERS, TAIL_CHARACTERS } from '../../src/daemon/sources/kit/evidence.js';
import { MAX_LINE_BYTES } from '../../src/daemon/sources/kit/transcript-lines.js';
import { FIRST_COMMANDS, LATEST_COMMANDS } from '../../src/handoff/activity-digest.js';
import { documentSections } from '../../src/handoff/checks/document-sections.js';
import { evidenceFromMessages } from '../../src/handoff/checks/evidence.js';
import { buildOfflineDocument, FIRST_REQUESTS_QUOTED, LATEST_REQUESTS_QUOTED } from '../../src/handoff/executors/offline-document.js';
import { messageText } from '../../src/handoff/transcript.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import type { TranscriptEvidence } from '../../src/daemon/watching/session-source.js';
import { cleanFacts } from '../support/clean-facts.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

let base: string;
const ROOT = '/work/project';
beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-long-evidence-'));
});
afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function documentOf(evidence: TranscriptEvidence): string {
  const facts = cleanFacts(ROOT);
  return buildOfflineDocument({
    sections: HANDOFF_SECTIONS,
    messages: evidence.messages,
    facts,
    factsBlock: renderFacts(facts),
    sessionId: 's1',
    sessionFile: '/elsewhere/s1.jsonl',
    places: { root: ROOT, home: '/home/someone' },
    earlier: evidence.earlier ?? undefined,
  });
}

const section = (document: string, marker: string) =>
  documentSections(document).find((entry) => entry.heading.startsWith(marker))?.body ?? '';
const keptCharacters = (evidence: TranscriptEvidence) =>
  evidence.messages.reduce((sum, entry) => sum + messageText(entry.message).length, 0);

describe('a long transcript is handed off from its latest messages and a digest of the rest', () => {
  it('a Claude Code session of thousands of commands, most of them read long before its end, lists its first and latest commands once each with its exit status and counts those between, each file it changed, and its first request, while the evidence keeps a bounded number of characters', async () => {
    const file = path.join(base, 'claude.jsonl');
    const written = await writeClaudeTranscript(file, { root: ROOT, sessionId: 's1', bytes: 24 * 1024 * 1024, outputBytes: 400 });
    expect(written.commands).toBeGreaterThan(5_000);
    const evidence = await readClaudeEvidence(file);
    expect(evidence.earlier).not.toBeNull();
    expect(keptCharacters(evidence)).toBeLessThanOrEqual(TAIL_CHARACTERS + EARLIER_REQUESTS_CHARACTERS);

    const document = documentOf(evidence);
    const done = section(document, '✅').split('\n');
    // The first commands and the latest, each once with its status; those between counted in one line.
    const commands = done.filter((line) => line.startsWith('- `npm test'));
    expect(commands).toHaveLength(FIRST_COMMANDS + LATEST_COMMANDS);
    expect(commands[0]).toBe('- `npm test -- --grep "case 0"` — exit 1');
    expect(commands[1]).toBe('- `npm test -- --grep "case 1"` — exit 0');
    expect(commands.at(-1)).toBe(
      `- \`npm test -- --grep "case ${written.commands - 1}"\` — exit ${(written.commands - 1) % 7 === 0 ? 1 : 0}`,
    );
    const between = written.commands - FIRST_COMMANDS - LATEST_COMMANDS;
    expect(done[done.indexOf(commands[FIRST_COMMANDS - 1]!) + 1]).toBe(
      `- … ${between} other commands, ${between} runs in all, between these and the latest ones`,
    );
    // 300 files, each edited (and read first: it is named once, as changed).
    expect(
      section(document, '📁')
        .split('\n')
        .filter((line) => line.startsWith('- `src/module-')),
    ).toHaveLength(300);
    // Every request counted; the first ones and the latest quoted, the count between said.
    const goal = section(document, '🎯');
    expect(goal).toContain(`The user's requests, in order, in their words (${written.requests}):`);
    expect(goal).toContain('1.\n\n> Step 0: fix the failing case in src/module-0.ts');
    expect(goal).toContain(`… ${written.requests - FIRST_REQUESTS_QUOTED - LATEST_REQUESTS_QUOTED} requests between`);
    expect(goal).toContain(`${written.requests}.\n\n> Step ${(written.requests - 1) * 40}: fix the failing case`);
    expect(section(document, '⚠️')).toContain('keep the public API as it is; never touch the lock file.');
    // The check's evidence counts the files the digest holds too.
    expect(evidenceFromMessages(evidence.messages, ROOT, [], evidence.earlier ?? undefined).changedFiles).toHaveLength(300);
  });

  it('a Codex rollout of thousands of commands, each run twice far apart, lists the first ones once with both runs and the latest ones', async () => {
    const file = path.join(base, 'rollout.jsonl');
    const written = await writeCodexRollout(file, { root: ROOT, sessionId: 's2', bytes: 24 * 1024 * 1024, outputBytes: 400 });
    // The same rollout read twice over in one file: each command has run twice, once failing when its turn is a 7th.
    await fs.appendFile(file, (await fs.readFile(file, 'utf8')).split('\n').slice(1).join('\n'));
    const evidence = await readCodexEvidence(file, ROOT);
    expect(evidence.earlier).not.toBeNull();
    const commands = section(documentOf(evidence), '✅')
      .split('\n')
      .filter((line) => line.startsWith('- `npm test'));
    expect(commands).toHaveLength(FIRST_COMMANDS + LATEST_COMMANDS);
    expect(commands[0]).toBe('- `npm test -- --grep "case 0"` — 2 runs: exit 1; last exit 1');
    expect(commands[1]).toBe('- `npm test -- --grep "case 1"` — 2 runs: exit 0; last exit 0');
    // The latest ones were let go of once, between the two readings: run again, they are counted from then.
    expect(commands.at(-1)).toBe(
      `- \`npm test -- --grep "case ${written.commands - 1}"\` — exit ${(written.commands - 1) % 7 === 0 ? 1 : 0}`,
    );
  });

  it('a line too long to hold is left out of the evidence and said, with where it starts; the lines around it are read', async () => {
    const file = path.join(base, 'huge-line.jsonl');
    const user = (text: string) => JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: text } });
    const before = `${user('Before the huge line: fix the parser.')}\n`;
    const huge = user('x'.repeat(MAX_LINE_BYTES + 1024));
    await fs.writeFile(file, `${before}${huge}\n${user('After the huge line: and its tests.')}\n`);
    const skipped: { offset: number; bytes: number }[] = [];
    const evidence = await readClaudeEvidence(file, { onSkippedLine: (line) => skipped.push(line) });
    expect(evidence.messages.map((entry) => entry.message.content)).toEqual([
      'Before the huge line: fix the parser.',
      'After the huge line: and its tests.',
    ]);
    expect(skipped).toEqual([{ offset: Buffer.byteLength(before), bytes: Buffer.byteLength(huge) }]);
  });

  it('asked for the first request only, the reader stops there', async () => {
    const file = path.join(base, 'first-request.jsonl');
    const written = await writeClaudeTranscript(file, { root: ROOT, sessionId: 's3', bytes: 4 * 1024 * 1024, outputBytes: 400 });
    expect(written.requests).toBeGreaterThan(1);
    const evidence = await readClaudeEvidence(file, { firstRequestOnly: true });
    expect(evidence.messages.map((entry) => entry.message.role)).toEqual(['user']);
    expect(evidence.messages[0]!.message.content).toContain('Step 0:');
  });
});
