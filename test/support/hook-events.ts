// The events and hook files the hooks-runner tests share (the in-process tier and the one that runs hooks).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AnyEvent } from '../../src/events.js';

export const overflow = {
  name: 'session.overflowed',
  payload: { sessionId: 'abcd1234-x', promptTokens: 130_000, maxContextTokens: 128_000, source: 'ai-zen' },
} satisfies AnyEvent;

export const written = {
  name: 'handoff.written',
  payload: {
    sessionId: 'abcd1234-x',
    mode: 'migrate',
    path: '.ai-zen/handoffs/20260101-101010-abcd1234.md',
    absolutePath: '/abs/x.md',
    executor: 'offline',
    cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
  },
} satisfies AnyEvent;

/** A hook script in `hooksDir`, executable unless `mode` says otherwise. */
export async function writeHookIn(hooksDir: string, name: string, script: string, mode = 0o755): Promise<string> {
  const file = path.join(hooksDir, name);
  await fs.writeFile(file, script);
  await fs.chmod(file, mode);
  return file;
}
