import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IncrementalLineReader, type RawLine } from '../../src/daemon/watching/incremental-reader.js';
import { createAiZenSessionSource } from '../../src/daemon/watching/session-source-ai-zen.js';
import { findSource, type SessionReader, type SessionState } from '../../src/daemon/watching/session-source.js';
import { projectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { parseSessionText } from '../../src/session/store.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

let repo: TempRepo;
let sessions: string;
const source = createAiZenSessionSource();

beforeEach(async () => {
  repo = await makeTempRepo({ git: false });
  sessions = projectPaths(repo.root).sessions;
  await fs.mkdir(sessions, { recursive: true });
});
afterEach(async () => {
  await repo.cleanup();
});

/** A real session file written by the real ConversationContext: messages in several scripts, usage, a handoff, a migration. */
async function realSessionBytes(root: string, maxContextTokens: number): Promise<Buffer> {
  const paths = projectPaths(root);
  const env = { AI_ZEN_HOME: path.join(root, '..', 'home') };
  const context = await ConversationContext.create({ paths, model: 'gpt-test', maxContextTokens, env });
  await context.appendMessage({ role: 'system', content: 'You are a careful coding agent.' }, { definition: true });
  const texts = ['list the files', '把 a.ts 的函数改成异步 — 谢谢', 'emoji 🧘‍♀️🚀 and ünïcödé', 'a'.repeat(3000), 'done?'];
  let prompt = 100;
  for (const text of texts) {
    await context.appendMessage({ role: 'user', content: text });
    await context.appendMessage({ role: 'assistant', content: `ok: ${text.slice(0, 40)} ✓` });
    prompt += 40;
    await context.appendUsage({ prompt_tokens: prompt, completion_tokens: 7, total_tokens: prompt + 7 });
  }
  await context.appendLine({
    type: 'handoff',
    at: new Date(0).toISOString(),
    path: '.ai-zen/handoffs/19700101-000000-abcdefgh.md',
    executor: 'offline',
    mode: 'migrate',
    downgrades: [],
    cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
  });
  const oldFile = context.sessionFile;
  await context.migrate({
    definitionMessages: [{ role: 'system', content: 'You are a careful coding agent.' }],
    breakpoint: { role: 'user', content: '.ai-zen/handoffs/19700101-000000-abcdefgh.md' },
    docPath: '.ai-zen/handoffs/19700101-000000-abcdefgh.md',
  });
  await context.close();
  return fs.readFile(oldFile);
}

/** Lines a reader skips, mixed into a real file: a corrupt line and a line of an unknown type. */
function withNoise(bytes: Buffer): Buffer {
  const text = bytes.toString('utf8').split('\n');
  text.splice(3, 0, '{"type":"message","message":{"role":"user","content":"torn', '{"type":"future-thing","x":1}');
  return Buffer.from(text.join('\n'));
}

function comparable(state: SessionState): unknown {
  const { file: _file, ...rest } = state;
  return rest;
}

async function fullParse(file: string): Promise<SessionState> {
  const reader = source.createReader(file);
  await reader.update();
  return reader.state;
}

/** Deterministic PRNG so a failing split can be replayed from its seed. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

function splitPoints(bytes: Buffer, random: () => number): number[] {
  const points = new Set<number>();
  // Always: inside a multi-byte UTF-8 character, and inside a line.
  const multibyte = bytes.findIndex((byte) => byte >= 0xc0);
  points.add(multibyte + 1);
  points.add(bytes.indexOf(0x0a) + 5);
  const pieces = 3 + Math.floor(random() * 25);
  for (let i = 0; i < pieces; i++) points.add(1 + Math.floor(random() * (bytes.length - 1)));
  return [...points].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b);
}

describe('D1 incremental session reader', () => {
  let original: Buffer;
  beforeAll(async () => {
    const fixture = await makeTempRepo({ git: false });
    try {
      original = withNoise(await realSessionBytes(fixture.root, 150));
    } finally {
      await fixture.cleanup();
    }
  });

  it('D1 differential: appended in random pieces (splits inside UTF-8 characters and lines), the state equals a full re-parse after every piece', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const random = prng(seed);
      const file = path.join(sessions, `differential-${seed}.jsonl`);
      // Same file name in another folder: the file name is part of the state (the id before the header).
      await fs.mkdir(path.join(repo.root, 'reference'), { recursive: true });
      const reference = path.join(repo.root, 'reference', `differential-${seed}.jsonl`);
      await fs.writeFile(file, '');
      // Odd seeds also read in tiny chunks, so chunk edges fall inside characters and lines too.
      const reader = (seed % 2 ? createAiZenSessionSource({ chunkSize: 5 + seed }) : source).createReader(file);
      let start = 0;
      let totalRead = 0;
      for (const end of [...splitPoints(original, random), original.length]) {
        const piece = original.subarray(start, end);
        await fs.appendFile(file, piece);
        const update = await reader.update();
        expect(update.reset, `seed ${seed} at ${end}`).toBeNull();
        expect(update.bytesRead, `seed ${seed}: bytes read = bytes appended`).toBe(piece.length);
        totalRead += update.bytesRead;
        await fs.writeFile(reference, original.subarray(0, end));
        expect(comparable(reader.state), `seed ${seed} after byte ${end}`).toEqual(comparable(await fullParse(reference)));
        start = end;
      }
      expect(totalRead).toBe(original.length);
      expect(reader.counters.bytesRead).toBe(original.length);
    }
  });

  it('D1 the state of a real session: header, latest usage, overflow, handoff, migrated closes it, skipped lines counted', async () => {
    // An independent oracle: the session store's own parser over the same text.
    const oracle = parseSessionText(original.toString('utf8'));
    const usages = oracle.lines.map((l) => l.line).filter((l) => l.type === 'usage');
    const header = oracle.lines[0]!.line;
    expect(header.type).toBe('session');
    // The file name is the session's identity (T2): the file is named after its header's id.
    const file = path.join(sessions, `${header.type === 'session' ? header.id : 'no-header'}.jsonl`);
    await fs.writeFile(file, original);
    const reader = source.createReader(file);
    const update = await reader.update();
    expect(update.state).toMatchObject({
      kind: 'ai-zen',
      sessionId: header.type === 'session' ? header.id : '',
      model: 'gpt-test',
      maxContextTokens: 150,
      latestUsage: usages.at(-1)!.type === 'usage' ? (usages.at(-1) as { usage: unknown }).usage : null,
      closed: true,
      overflowed: false, // over its limit (300 > 150) but closed by the migrated line
      messageCount: oracle.lines.filter((l) => l.line.type === 'message').length,
      lastHandoff: { path: '.ai-zen/handoffs/19700101-000000-abcdefgh.md', executor: 'offline', mode: 'migrate' },
      skippedCount: 2,
    });
    expect(update.skipped.map((s) => [s.lineNumber, s.reason])).toEqual([
      [4, 'not valid JSON'],
      [5, 'unknown line type future-thing'],
    ]);
    expect(oracle.skipped.map((s) => s.lineNumber)).toEqual([4, 5]);
  });

  it('D1 overflow per SPEC: latest prompt_tokens over maxContextTokens and not migrated, reported once when it starts', async () => {
    const file = path.join(sessions, 'overflowing-1.jsonl');
    const header = {
      type: 'session',
      v: 1,
      id: 'overflowing-1',
      createdAt: 'now',
      cwd: repo.root,
      model: 'm',
      maxContextTokens: 1000,
      previousId: null,
    };
    const usage = (prompt: number) =>
      JSON.stringify({ type: 'usage', usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 } }) + '\n';
    await fs.writeFile(file, JSON.stringify(header) + '\n' + usage(900));
    const reader = source.createReader(file);
    expect((await reader.update()).state.overflowed).toBe(false);

    await fs.appendFile(file, usage(1000)); // equal is not over
    expect((await reader.update()).overflowStarted).toBe(false);
    await fs.appendFile(file, usage(1001));
    const crossed = await reader.update();
    expect(crossed).toMatchObject({
      overflowStarted: true,
      usageChanged: true,
      state: { overflowed: true, latestUsage: { prompt_tokens: 1001 } },
    });
    await fs.appendFile(file, usage(1200));
    expect(await reader.update()).toMatchObject({ overflowStarted: false, usageChanged: true, state: { overflowed: true } });
    await fs.appendFile(file, JSON.stringify({ type: 'migrated', at: 'now', newId: 'successor-1', path: 'x.md' }) + '\n');
    expect((await reader.update()).state).toMatchObject({ overflowed: false, closed: true, successorId: 'successor-1' });
  });

  it('D1 a partial last line waits for its end', async () => {
    const file = path.join(sessions, 'partial-line.jsonl');
    const line = JSON.stringify({
      type: 'session',
      v: 1,
      id: 'partial-line',
      createdAt: 'now',
      cwd: '/',
      model: 'm',
      maxContextTokens: 10,
      previousId: null,
    });
    await fs.writeFile(file, line); // no newline yet: a whole JSON object, but not a finished line
    const reader = source.createReader(file);
    expect(await reader.update()).toMatchObject({ linesRead: 0, bytesRead: line.length, state: { model: null } });
    await fs.appendFile(file, '\n');
    expect(await reader.update()).toMatchObject({ linesRead: 1, bytesRead: 1, state: { model: 'm', sessionId: 'partial-line' } });
  });

  it('D1 a truncated file is read again from the start', async () => {
    const file = path.join(sessions, 'truncated-1.jsonl');
    await fs.writeFile(file, original);
    const reader = source.createReader(file);
    await reader.update();
    const cut = original.indexOf(0x0a, original.length / 3) + 1;
    await fs.truncate(file, cut);
    const update = await reader.update();
    expect(update.reset).toBe('truncated');
    expect(update.bytesRead).toBe(cut);
    expect(comparable(update.state)).toEqual(comparable(await fullParse(file)));
    expect(update.state.closed).toBe(false);
  });

  it('D1 a replaced file (another inode) is read again from the start', async () => {
    const file = path.join(sessions, 'replaced-1.jsonl');
    await fs.writeFile(file, original);
    const reader = source.createReader(file);
    await reader.update();
    const replacement = original.subarray(0, original.indexOf(0x0a, 2000) + 1);
    const temp = path.join(sessions, '.replaced-1.tmp');
    await fs.writeFile(temp, Buffer.concat([replacement, replacement.subarray(0, 0)]));
    await fs.rename(temp, file);
    const update = await reader.update();
    expect(update.reset).toBe('replaced');
    expect(comparable(update.state)).toEqual(comparable(await fullParse(file)));
  });

  it('D1 a file rewritten in place that grew is detected (size alone would not show it)', async () => {
    const file = path.join(sessions, 'rewritten-1.jsonl');
    const header = (id: string, max: number) =>
      JSON.stringify({ type: 'session', v: 1, id, createdAt: 'now', cwd: '/', model: 'm', maxContextTokens: max, previousId: null }) + '\n';
    const usage = (prompt: number) =>
      JSON.stringify({ type: 'usage', usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 } }) + '\n';
    await fs.writeFile(file, header('rewritten-1', 100) + usage(50));
    const reader = source.createReader(file);
    await reader.update();
    const { ino } = await fs.stat(file);

    // Same inode, new head (the same session id: the file name is its identity, T2), longer than before.
    await fs.writeFile(file, header('rewritten-1', 200) + usage(10) + usage(20) + usage(300));
    expect((await fs.stat(file)).ino).toBe(ino);
    const update = await reader.update();
    expect(update.reset).toBe('rewritten');
    expect(update.state).toMatchObject({
      sessionId: 'rewritten-1',
      maxContextTokens: 200,
      latestUsage: { prompt_tokens: 300 },
      overflowed: true,
    });

    // Same head, different bytes just before our offset, and longer: still detected.
    const before = (await fs.readFile(file, 'utf8')).replace(usage(300), usage(301)) + usage(5);
    await fs.writeFile(file, before);
    const again = await reader.update();
    expect(again.reset).toBe('rewritten');
    expect(comparable(again.state)).toEqual(comparable(await fullParse(file)));
    expect(again.state.latestUsage?.prompt_tokens).toBe(5);
  });

  it('D1 bytes read per append equal the bytes appended, whatever the size of the file', async () => {
    const file = path.join(sessions, 'large-session.jsonl');
    const header =
      JSON.stringify({
        type: 'session',
        v: 1,
        id: 'large-session',
        createdAt: 'now',
        cwd: '/',
        model: 'm',
        maxContextTokens: 1000,
        previousId: null,
      }) + '\n';
    const message = JSON.stringify({ type: 'message', message: { role: 'tool', content: 'x'.repeat(4000), tool_call_id: 't' } }) + '\n';
    await fs.writeFile(file, header + message.repeat(1500)); // ~6 MB
    const reader = source.createReader(file);
    await reader.update();
    const afterFirst = reader.counters;
    for (let i = 0; i < 5; i++) {
      const line = JSON.stringify({ type: 'usage', usage: { prompt_tokens: 900 + i * 50, completion_tokens: 1, total_tokens: 1 } }) + '\n';
      await fs.appendFile(file, line);
      const update = await reader.update();
      expect(update.bytesRead).toBe(Buffer.byteLength(line));
      expect(update.linesRead).toBe(1);
    }
    const counters = reader.counters;
    // Identity checks re-read a constant few hundred bytes per append, never the file.
    expect(counters.checkBytesRead - afterFirst.checkBytesRead).toBeLessThanOrEqual(5 * (256 + 32));
    expect(reader.state.overflowed).toBe(true);
  });

  it('D1 updates asked for at once (watcher event and reconcile pass) are queued: each byte is read once', async () => {
    const file = path.join(sessions, 'concurrent-1.jsonl');
    await fs.writeFile(file, original);
    const reader = source.createReader(file);
    const updates = await Promise.all([reader.update(), reader.update(), reader.update()]);
    expect(updates.map((u) => u.bytesRead)).toEqual([original.length, 0, 0]);
    expect(comparable(reader.state)).toEqual(comparable(await fullParse(file)));
  });

  it('D1 an unchanged file costs no read; a missing file is reported, not thrown', async () => {
    const file = path.join(sessions, 'gone-later.jsonl');
    await fs.writeFile(file, original);
    const reader = source.createReader(file);
    await reader.update();
    const idle = await reader.update();
    expect(idle).toMatchObject({ bytesRead: 0, checkBytesRead: 0, linesRead: 0, reset: null });
    expect(reader.counters.checkBytesRead).toBe(0);
    await fs.rm(file);
    const gone = await reader.update();
    expect(gone).toMatchObject({ missing: true, bytesRead: 0 });
    expect(gone.state).toEqual(gone.previous);
  });

  it('D1 an over-long line is skipped without being held in memory, and reading goes on after it', async () => {
    const file = path.join(sessions, 'long-line.jsonl');
    const reader = new IncrementalLineReader(file, { maxLineBytes: 100, chunkSize: 16 });
    const lines: RawLine[] = [];
    const oversized: number[] = [];
    await fs.writeFile(file, 'short\n' + 'y'.repeat(150));
    await reader.read({ line: (l) => lines.push(l), oversized: (o) => oversized.push(o.bytes) });
    await fs.appendFile(file, 'y'.repeat(50) + '\nafter\n');
    await reader.read({ line: (l) => lines.push(l), oversized: (o) => oversized.push(o.bytes) });
    expect(lines.map((l) => [l.lineNumber, l.text, l.offset])).toEqual([
      [1, 'short', 0],
      [3, 'after', 207],
    ]);
    expect(oversized).toEqual([200]);
  });
});

describe('D1 session sources', () => {
  it('D1 the ai-zen source claims only .ai-zen/sessions/<id>.jsonl, not temp files or other folders', () => {
    const claimed = (file: string) => findSource([source], file)?.id ?? null;
    expect(claimed('/p/.ai-zen/sessions/0b9c1a2e-1111-4222-8333-944445555666.jsonl')).toBe('ai-zen');
    expect(claimed('/p/.ai-zen/sessions/.0b9c1a2e-1111.jsonl.abc123.tmp')).toBeNull();
    expect(claimed('/p/.ai-zen/sessions/latest.json')).toBeNull();
    expect(claimed('/p/.ai-zen/handoffs/0b9c1a2e-1111-4222-8333-944445555666.jsonl')).toBeNull();
    expect(claimed('/p/other/sessions/0b9c1a2e-1111-4222-8333-944445555666.jsonl')).toBeNull();
  });

  it('D1 a reader of a file with no header yet names the session after its file', async () => {
    const reader: SessionReader = source.createReader(path.join(sessions, 'not-yet-written.jsonl'));
    expect(reader.state).toMatchObject({ sessionId: 'not-yet-written', maxContextTokens: null, overflowed: false });
    expect(await reader.update()).toMatchObject({ missing: true });
  });
});
