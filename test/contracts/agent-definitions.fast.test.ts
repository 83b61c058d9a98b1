// Every agent in the list keeps the same promises, whatever its transcripts look like: its successor
// command is one shell command line that names the document (and that the daemon links back to it),
// its reader never throws on junk, and the evidence a handoff reads keeps each message bounded. A
// new agent is held to them by being in the list (and, for its evidence, by a line of the table
// below, which the type makes complete).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchedAgent } from '../../src/config/agent-names.js';
import { AGENT_MODULES } from '../../src/daemon/sources/index.js';
import { MESSAGE_TEXT_BYTES } from '../../src/daemon/sources/kit/evidence.js';
import { successorCommand } from '../../src/daemon/sources/kit/successor.js';
import { continuedDocument } from '../../src/handoff/previous-document.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';
import { parseRecord } from '../../src/daemon/sources/kit/json-record.js';
import { silentLogger } from '../../src/log/logger.js';
import { writeOpencodeDatabase } from '../support/opencode-database.js';
import { DEFAULT_AGENT_CONFIG } from '../support/agent-config.js';

const CONFIG = DEFAULT_AGENT_CONFIG;
const DOC = '.ai-zen/handoffs/20261204-200801-2680db36.md';
const BIG = `head-${'x'.repeat(1_000_000)}-tail`;
const json = (value: unknown) => JSON.stringify(value);

/** A transcript line (or two) of each agent that carries BIG as something its evidence keeps. */
const BIG_LINES: Record<WatchedAgent, readonly string[]> = {
  'claude-code': [json({ type: 'user', message: { role: 'user', content: BIG } })],
  codex: [json({ type: 'event_msg', payload: { type: 'user_message', message: BIG } })],
  'qwen-code': [json({ type: 'user', message: { role: 'user', parts: [{ text: BIG }] } })],
  pi: [json({ type: 'message', id: 'a1', parentId: null, message: { role: 'user', content: BIG } })],
  copilot: [json({ type: 'user.message', data: { content: BIG } })],
  gemini: [json({ id: 'g1', type: 'gemini', content: BIG })],
  cline: [JSON.stringify({ version: 1, messages: [{ role: 'user', content: [{ type: 'text', text: BIG }] }] }, null, 2)],
  opencode: [json({ role: 'user', parts: [{ type: 'text', text: BIG }] })],
  kilo: [json({ role: 'user', parts: [{ type: 'text', text: BIG }] })],
};

/** The agents whose sessions are rows of a database (opencode's schema), where it is under the home: their lines are its messages. */
const DATABASES: Partial<Record<WatchedAgent, string>> = {
  opencode: '.local/share/opencode/opencode.db',
  kilo: '.local/share/kilo/kilo.db',
};

const JUNK = [
  '',
  'not json',
  '[1,2,3]',
  '{"type":',
  'null',
  '{"type":"assistant","message":{"usage":{"input_tokens":-5}}}',
  '\u0000\u0001',
];

let home: string;
beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-agents-'));
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe.each(AGENT_MODULES.map((agent) => [agent.label, agent] as const))('%s', (_label, agent) => {
  const source = () =>
    agent.createSource({ root: path.join(home, 'repo'), env: { HOME: home, PATH: process.env.PATH ?? '' }, config: CONFIG });

  it('the successor command is one command line: the agent, then a prompt that names the document', () => {
    const command = successorCommand(agent, DOC);
    const words = parse(command);
    expect(words.every((word) => typeof word === 'string')).toBe(true);
    expect(words[0]).toBe(agent.word);
    const prompt = String(words.at(-1));
    expect(continuedDocument(prompt)).toBe(DOC);
    expect(words).toEqual([agent.word, ...agent.startArgs(prompt, [])]);
    expect(source().handoff?.successorCommand(DOC)).toBe(command);
  });

  /** The lines as the agent keeps a session: a file of them, or a session of its database whose messages they are. */
  const transcript = async (name: string, lines: readonly string[]): Promise<string> => {
    const database = DATABASES[agent.name];
    if (!database) {
      const file = path.join(home, `${agent.name}-${name}.jsonl`);
      await fs.writeFile(file, `${lines.join('\n')}\n`);
      return file;
    }
    const file = path.join(home, database);
    // A line that is a JSON object is a message (its `parts` become part rows); any other is a row's data as it is.
    const messages = lines.map((line) => {
      const value = parseRecord(line);
      return value ?? line;
    });
    await writeOpencodeDatabase(file, [{ id: `ses_${name}`, directory: path.join(home, 'repo'), messages }]);
    return `${file}#ses_${name}`;
  };
  const readState = async (file: string): Promise<SessionState> => {
    const watched = source();
    if (!watched.watchFolder) {
      const reader = watched.createReader(file);
      const update = await reader.update();
      reader.release();
      return update.state;
    }
    const sessions = watched.watchFolder({ folder: path.dirname(file), logger: silentLogger(), onUpdate: () => {} });
    await sessions.list();
    const state = sessions.state(file);
    await sessions.close();
    expect(state).not.toBeNull();
    return state!;
  };

  it('its reader never throws on junk lines and reads no usage from them', async () => {
    const state = await readState(await transcript('junk', JUNK));
    expect(state.latestUsage).toBeNull();
    expect(state.overflowed).toBe(false);
  });

  it('its evidence keeps each message bounded: the head and the tail of a 1 MB one, the middle left out', async () => {
    const file = await transcript('big', BIG_LINES[agent.name]);
    const { messages } = await source().handoff!.readEvidence(file);
    const texts = messages.map((entry) => entry.message.content).filter((content): content is string => typeof content === 'string');
    const kept = texts.find((text) => text.startsWith('head-'));
    expect(kept, `no message of ${agent.label}'s evidence carries the big line`).toBeDefined();
    expect(kept!.endsWith('-tail')).toBe(true);
    expect(kept!.length).toBeLessThan(MESSAGE_TEXT_BYTES + 200);
    expect(kept).toContain('characters left out');
  });
});
