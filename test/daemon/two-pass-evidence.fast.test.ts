// pi's and Gemini CLI's evidence is read in two passes (the places of the lines wanted, then those
// lines again by place), so that a big session is read at bounded memory. Read that way, from a real
// file whose lines run across the reader's 256 KB chunks, it gives the same messages as the wanted
// lines read whole, in memory — and nothing of what the client itself left behind.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { conversation, geminiSessionMessages, readGeminiEvidence } from '../../src/daemon/sources/gemini/gemini-evidence.js';
import { piTranscriptMessages, readPiEvidence } from '../../src/daemon/sources/pi/pi-evidence.js';

let base: string;
let root: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-two-pass-'));
  root = path.join(base, 'repo');
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** An output long enough that its line runs across more than one of the reader's 256 KB chunks. */
const long = (n: number) => `output ${n}\n${'a line of build output, nothing in it\n'.repeat(9_000)}[end ${n}]`;

describe('pi evidence read in two passes', () => {
  const header = { type: 'session', version: 3, id: '01a23ffc-3507-75d7-b2b8-404ee8d06827', timestamp: 'T', cwd: '' };
  const entry = (id: string, parentId: string | null, message: object) => ({ type: 'message', id, parentId, timestamp: 'T', message });
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
  const bash = (id: string, command: string) => ({
    role: 'assistant',
    content: [{ type: 'toolCall', id, name: 'bash', arguments: { command } }],
  });
  const result = (id: string, text: string, isError = false) => ({
    role: 'toolResult',
    toolCallId: id,
    content: [{ type: 'text', text }],
    isError,
  });

  test('the branch the session is on, read again by place, gives the messages of its lines read whole; the branch left by /tree is not in them', async () => {
    const branch = [
      entry('a1', null, user('make the build pass')),
      entry('a2', 'a1', bash('c1', 'npm run build')),
      entry('a3', 'a2', result('c1', `${long(1)}\nCommand exited with code 2`, true)),
    ];
    const abandoned = [
      entry('b1', 'a3', user('try the abandoned idea')),
      entry('b2', 'b1', bash('c2', 'rm -rf dist')),
      entry('b3', 'b2', result('c2', long(2))),
    ];
    const after = [
      // pi's /tree: the next entry names an earlier one as its parent, and the branch goes on from there.
      { type: 'model_change', id: 'a4', parentId: 'a3', timestamp: 'T', provider: 'anthropic', modelId: 'claude' },
      entry('a5', 'a4', bash('c3', 'npm test')),
      entry('a6', 'a5', result('c3', long(3))),
      entry('a7', 'a6', { role: 'assistant', content: [{ type: 'text', text: 'The build passes now.' }] }),
    ];
    const session = { ...header, cwd: root };
    const lines = [session, ...branch, ...abandoned, ...after].map((line) => JSON.stringify(line));
    const file = path.join(base, 'session.jsonl');
    await fs.writeFile(file, `${lines.join('\r\n')}\r\n`);
    expect((await fs.stat(file)).size).toBeGreaterThan(3 * 256 * 1024);

    const messages = (await readPiEvidence(file, {}, root)).messages;
    const wanted = [session, ...branch, ...after].map((line) => JSON.stringify(line));
    expect(messages).toEqual(piTranscriptMessages(wanted, root));
    const text = JSON.stringify(messages);
    expect(text).toContain('[end 1]');
    expect(text).toContain('[end 3]');
    expect(text).not.toContain('abandoned idea');
    expect(text).not.toContain('rm -rf dist');
    expect(messages.at(-1)?.message).toEqual({ role: 'assistant', content: 'The build passes now.' });
    expect(
      messages.filter((message) => message.message.role === 'tool').map((message) => String(message.message.content).split('\n').at(-1)),
    ).toEqual(['[exit code 2]', '[exit code 0]']);
  });
});

describe('Gemini CLI evidence read in two passes', () => {
  const meta = { sessionId: '3d57ac63-d4fd-4b31-90c4-21c84cde8b1f', projectHash: 'b0db30', startTime: 'T', lastUpdated: 'T', kind: 'main' };
  const user = (id: string, text: string) => ({ id, timestamp: 'T', type: 'user', content: [{ text }] });
  const reply = (id: string, content: string, toolCalls?: object[]) => ({
    id,
    timestamp: 'T',
    type: 'gemini',
    content,
    ...(toolCalls ? { toolCalls } : {}),
  });
  const shell = (id: string, command: string, output: string) => ({
    id,
    name: 'run_shell_command',
    args: { command },
    result: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
    status: 'success',
  });

  /** The conversation as the client rebuilds it, every line parsed and held: what the reader did before it streamed. */
  function rebuiltWhole(lines: readonly string[]): Record<string, unknown>[] {
    const messages = new Map<string, Record<string, unknown>>();
    for (const line of lines.map((text) => JSON.parse(text) as Record<string, unknown>)) {
      const patch = line.$set as { messages?: Record<string, unknown>[] } | undefined;
      if (typeof line.$rewindTo === 'string') {
        const ids = [...messages.keys()];
        const from = ids.indexOf(line.$rewindTo);
        for (const id of from === -1 ? ids : ids.slice(from)) messages.delete(id);
      } else if (patch?.messages) {
        messages.clear();
        for (const message of patch.messages) messages.set(message.id as string, message);
      } else if (typeof line.id === 'string' && typeof line.type === 'string') messages.set(line.id, line);
    }
    return [...messages.values()];
  }

  test('the rebuilt conversation, read again by place, gives the messages of the lines read whole: a rewrite in its first place, `$set` read once, a rewind dropped', async () => {
    const lines = [
      meta,
      { $set: { messages: [user('s1', 'the request a resume brought back'), reply('s2', 'Resumed.'), user('s3', 'and a second one')] } },
      user('u0', 'an abandoned request'),
      reply('g0', 'abandoned', [shell('x1', 'rm -rf dist', long(0))]),
      { $rewindTo: 'u0' },
      user('u1', 'make the build pass'),
      reply('g1', 'Building.'),
      user('u2', 'then run the tests'),
      // The reply written again under its id with its calls' results: it stays where it was first written.
      reply('g1', 'Building.', [shell('c1', 'npm run build', `${long(1)}\nExit Code: 2`)]),
      reply('g2', '', [shell('c2', 'npm test', long(2))]),
      reply('g3', 'The tests pass.'),
    ].map((line) => JSON.stringify(line));
    const file = path.join(base, 'session.jsonl');
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    expect((await fs.stat(file)).size).toBeGreaterThan(3 * 256 * 1024);

    const messages = (await readGeminiEvidence(file, root)).messages;
    expect(messages).toEqual(geminiSessionMessages(rebuiltWhole(lines), root));
    expect(conversation(lines)).toEqual(rebuiltWhole(lines));
    const words = messages.filter((message) => message.message.role === 'user').map((message) => message.message.content);
    expect(words).toEqual(['the request a resume brought back', 'and a second one', 'make the build pass', 'then run the tests']);
    const text = JSON.stringify(messages);
    expect(text).not.toContain('abandoned');
    expect(text).toContain('[end 1]');
    expect(messages.at(-1)?.message).toEqual({ role: 'assistant', content: 'The tests pass.' });
  });
});
