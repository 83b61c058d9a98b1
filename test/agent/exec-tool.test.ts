// The agent's exec tool runs through the one process runner. What a user notices:
// a command past its time limit is ended with everything it started, and the model's key stays out.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecTool } from '../../src/agent/tools/exec.js';
import { processAlive } from '../support/process-alive.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo();
});
afterEach(async () => {
  await repo.cleanup();
});

describe('the exec tool', () => {
  it('R13 a command past its time limit is killed with its background children', async () => {
    const exec = createExecTool({ timeoutMs: 3000, outputLimit: 1000 });
    const result = await exec.run({ command: 'sleep 1000 & echo $! > bg.pid; echo started; wait' }, { root: repo.root });
    expect(result).toMatchObject({ isError: true });
    expect(result.forModel).toBe('started\n[killed: no exit within 3 s]');
    const background = Number(await fs.readFile(path.join(repo.root, 'bg.pid'), 'utf8'));
    await waitFor(() => !processAlive(background), { message: 'the background sleep to be killed' });
  });

  it('R13 the command sees the user’s environment without the model api key', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-not-for-commands';
    process.env.AI_ZEN_EXEC_PROBE = 'visible';
    try {
      const exec = createExecTool({ timeoutMs: 10_000, outputLimit: 1000 });
      const result = await exec.run({ command: 'echo "key=[$OPENAI_API_KEY] probe=$AI_ZEN_EXEC_PROBE"' }, { root: repo.root });
      expect(result.forModel).toBe('key=[] probe=visible\n[exit code 0]');
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.AI_ZEN_EXEC_PROBE;
    }
  });
});
