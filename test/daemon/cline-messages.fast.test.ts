// A Cline conversation is one JSON document, pretty-printed as 3.0.65 writes it; its evidence reader
// streams it a line at a time and parses one message at a time. Read in those pieces from a real file
// whose lines and messages run across the reader's 256 KB chunks, it gives the messages the document
// parsed whole gives; so does a document written on one line.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readClineEvidence } from '../../src/daemon/sources/cline/cline-evidence.js';
import { clineMessages } from '../../src/daemon/sources/cline/cline-messages.js';

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-cline-messages-'));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const ID = '1796466492763_ioic5';
const long = (n: number) => `output ${n}\n${'a line of build output, with "quotes" and {braces}\n'.repeat(7_000)}[end ${n}]`;
const user = (text: string) => ({
  id: 'u1',
  role: 'user',
  content: [{ type: 'text', text: `<user_input mode="act">${text}</user_input>` }],
  ts: 1,
});
const run = (id: string, command: string) => ({
  id: `m_${id}`,
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'run_commands', input: { commands: [command] } }],
  ts: 2,
  modelInfo: { id: 'gpt-4.1', provider: 'openai-compatible' },
  metrics: { inputTokens: 20_000, outputTokens: 50 },
});
const ran = (id: string, command: string, output: string, success: boolean) => ({
  id: `r_${id}`,
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, name: 'run_commands', content: [{ query: command, result: output, success }] }],
  ts: 3,
});
const document = (messages: object[]) => ({
  version: 1,
  updated_at: '2026-12-05T10:28:14.800Z',
  agent: 'lead',
  sessionId: ID,
  origin: { source: 'cli', mode: 'user', sessionId: ID },
  messages,
  // A top-level array of objects after the messages, at their depth: not a message.
  tools: [{ name: 'run_commands' }],
  system_prompt: 'You are Cline.\n    {\n    }',
});

async function collect(file: string): Promise<unknown[]> {
  const messages: unknown[] = [];
  for await (const message of clineMessages(file)) messages.push(message);
  return messages;
}

describe('Cline conversation read a message at a time', () => {
  const messages = [
    user('make the build pass'),
    run('c1', 'npm run build'),
    ran('c1', 'npm run build', long(1), false),
    run('c2', 'npm test'),
    ran('c2', 'npm test', long(2), true),
    { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'The build passes now.' }], ts: 4 },
  ];

  test('pretty-printed as Cline writes it, the messages are the document’s, and so is the evidence', async () => {
    const file = path.join(base, `${ID}.messages.json`);
    await fs.writeFile(file, `${JSON.stringify(document(messages), null, 2)}\n`);
    expect((await fs.stat(file)).size).toBeGreaterThan(2 * 256 * 1024);
    expect(await collect(file)).toEqual(messages);

    const evidence = (await readClineEvidence(file, base)).messages.map(({ message }) => message);
    expect(evidence[0]).toEqual({ role: 'user', content: 'make the build pass' });
    const results = evidence.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[0]).toMatch(/^error: output 1\n/);
    expect(results[1]).toMatch(/\[end 2\]\n\[exit code 0\]$/);
    expect(evidence.at(-1)).toEqual({ role: 'assistant', content: 'The build passes now.' });
  });

  test('written on one line, or with no messages yet, or missing, it reads as the document says', async () => {
    const file = path.join(base, `${ID}.messages.json`);
    await fs.writeFile(file, JSON.stringify(document(messages)));
    expect(await collect(file)).toEqual(messages);
    await fs.writeFile(file, `${JSON.stringify(document([]), null, 2)}\n`);
    expect(await collect(file)).toEqual([]);
    expect((await readClineEvidence(path.join(base, 'gone.messages.json'), base)).messages).toEqual([]);
  });
});
