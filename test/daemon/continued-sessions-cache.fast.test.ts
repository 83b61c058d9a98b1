// `status`, `sessions` and `top` ask on every request which session continued which; the answer
// comes from a transcript's first request. A transcript is read up to that request once; one that
// has none yet is read again only when it has grown, never on the next request alone.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readClaudeEvidence } from '../../src/daemon/sources/claude-code/claude-evidence.js';
import { createContinuedSessions } from '../../src/daemon/handoffs/continued-sessions.js';
import { emptyAgentState, type EvidenceOptions, type SessionSource, type SessionState } from '../../src/daemon/watching/session-source.js';

const DOCUMENT = '.ai-zen/handoffs/20261205-070000-aaaaaaaa.md';
const user = (text: string) => `${JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: text } })}\n`;
const assistant = (text: string) =>
  `${JSON.stringify({ type: 'assistant', isSidechain: false, message: { id: 'm', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] } })}\n`;

let base: string;
let reads: { file: string; options: EvidenceOptions | undefined }[];
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-continued-'));
  reads = [];
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Claude Code's evidence reader, as the daemon's source has it, counting its readings. */
const source = (): SessionSource => ({
  id: 'claude-code',
  kind: 'claude-code',
  matches: (file) => file.startsWith(base),
  createReader: () => {
    throw new Error('continued-sessions reads evidence only');
  },
  handoff: {
    readEvidence: (file, options) => {
      reads.push({ file, options });
      return readClaudeEvidence(file, options);
    },
    successorCommand: (document) => `claude "Read ${document}"`,
  },
});

function stateOf(file: string, sessionId: string, startedAt: string): SessionState {
  const empty = emptyAgentState({
    kind: 'claude-code',
    file,
    sessionId,
    window: 200_000,
    thresholds: { handoffAt: 80, warnAt: 70, compactsAt: null },
    details: {},
  });
  return { ...empty, startedAt };
}

describe('which session continued which, read once per transcript', () => {
  it('a transcript with no request yet is read once, not again on the next status; read again once it has grown, and never again once its first request named the document', async () => {
    const file = path.join(base, 'successor.jsonl');
    await fs.writeFile(file, assistant('warming up'));
    const continued = createContinuedSessions({ sources: [source()], sessionOfDocument: () => 'predecessor' });
    const documents = [{ path: DOCUMENT, sessionId: 'predecessor', at: '2026-12-05T07:00:00.000Z' }];
    const states = () => [stateOf(file, 'successor', '2026-12-05T07:01:00.000Z')];

    expect(await continued.successors(states(), documents)).toEqual(new Map());
    expect(await continued.successors(states(), documents)).toEqual(new Map());
    expect(await continued.previousOf(states()[0]!)).toBeNull();
    expect(reads).toHaveLength(1);
    expect(reads[0]!.options).toEqual({ firstRequestOnly: true });

    await fs.appendFile(file, user(`Read the handoff document ${DOCUMENT} and continue.`));
    expect(await continued.successors(states(), documents)).toEqual(new Map([['predecessor', 'successor']]));
    expect(reads).toHaveLength(2);

    await fs.appendFile(file, assistant('Reading it.').repeat(100));
    expect(await continued.successors(states(), documents)).toEqual(new Map([['predecessor', 'successor']]));
    expect(await continued.previousOf(states()[0]!)).toEqual({ path: DOCUMENT, sessionId: 'predecessor' });
    expect(reads).toHaveLength(2);
  });

  it('a transcript whose first request names no document is read once and answered from then on, whatever it grows to', async () => {
    const file = path.join(base, 'fresh.jsonl');
    await fs.writeFile(file, user('Add a --verbose flag.'));
    const continued = createContinuedSessions({ sources: [source()], sessionOfDocument: () => null });
    const state = stateOf(file, 'fresh', '2026-12-05T07:01:00.000Z');
    expect(await continued.previousOf(state)).toBeNull();
    await fs.appendFile(file, assistant('Done.').repeat(100));
    expect(await continued.previousOf(state)).toBeNull();
    expect(reads).toHaveLength(1);
  });

  it('two requests at once read a transcript once', async () => {
    const file = path.join(base, 'twice.jsonl');
    await fs.writeFile(file, assistant('no request'));
    const continued = createContinuedSessions({ sources: [source()], sessionOfDocument: () => null });
    const state = stateOf(file, 'twice', '2026-12-05T07:01:00.000Z');
    expect(await Promise.all([continued.previousOf(state), continued.previousOf(state)])).toEqual([null, null]);
    expect(reads).toHaveLength(1);
  });
});
