// The public contracts are published as JSON Schema under schemas/, generated from
// the zod schemas; this fails when they drift from the code. `npm run schemas` regenerates them
// (it runs this file with AI_ZEN_WRITE_SCHEMAS=1).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createHooksRunner } from '../../src/daemon/side-channels/hooks-runner.js';
import { HookInput, renderContracts } from './contract-schemas.js';

const folder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'schemas');

describe('published contracts', () => {
  it.runIf(process.env.AI_ZEN_WRITE_SCHEMAS === '1')('writes schemas/ from the zod schemas', async () => {
    await fs.mkdir(folder, { recursive: true });
    for (const [file, text] of renderContracts()) await fs.writeFile(path.join(folder, file), text);
  });

  it('schemas/ holds exactly the JSON Schemas the zod schemas generate today (run `npm run schemas` after changing a contract)', async () => {
    const expected = renderContracts();
    const committed = (await fs.readdir(folder)).filter((file) => file.endsWith('.schema.json')).sort();
    expect(committed).toEqual([...expected.keys()].sort());
    for (const [file, text] of expected) expect(await fs.readFile(path.join(folder, file), 'utf8'), file).toBe(text);
  });
});

describe('the published hook input is what a hook reads', () => {
  it("a real hook run by the daemon's hooks runner reads stdin that matches hook-input.v1", async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-contract-')));
    try {
      const hooks = path.join(root, '.ai-zen', 'hooks');
      await fs.mkdir(hooks, { recursive: true });
      const received = path.join(root, 'received.json');
      await fs.writeFile(path.join(hooks, 'on-handoff'), `#!/bin/sh\ncat > '${received}'\n`, { mode: 0o755 });
      const runner = createHooksRunner({ root, logger: pino({ level: 'silent' }) });
      const result = await runner.runForEvent({
        name: 'handoff.written',
        payload: {
          sessionId: 'abcd1234-x',
          mode: 'migrate',
          path: '.ai-zen/handoffs/x.md',
          absolutePath: '/abs/x.md',
          executor: 'offline',
          cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
        },
      });
      expect(result?.status).toBe('ok');
      const input: unknown = JSON.parse(await fs.readFile(received, 'utf8'));
      expect(HookInput.safeParse(input).success).toBe(true);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
