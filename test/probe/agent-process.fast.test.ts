// The agent process behind a hook: the first ancestor that is not a shell, read from /proc.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { agentProcessOf, processEntry } from '../../src/probe/agent-process.js';

test('a hook run through sh -c and a shell shim belongs to the agent above them; a gone process gives null', async () => {
  const proc = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-proc-'));
  const stat = async (pid: number, name: string, parent: number) => {
    await fs.mkdir(path.join(proc, String(pid)));
    await fs.writeFile(path.join(proc, String(pid), 'stat'), `${pid} (${name}) S ${parent} ${pid} ${pid} 0 -1 4194304\n`);
  };
  await stat(100, 'claude', 1);
  await stat(200, 'sh', 100);
  await stat(300, 'bash', 200);
  await stat(400, 'node (weird) name', 300);
  expect(agentProcessOf(300, proc)).toBe(100);
  expect(agentProcessOf(400, proc)).toBe(400);
  expect(processEntry(400, proc)).toEqual({ name: 'node (weird) name', parent: 300 });
  expect(agentProcessOf(999, proc)).toBeNull();
  await fs.rm(proc, { recursive: true, force: true });
});

test('this test runs in node: on this machine’s /proc it is its own agent process', () => {
  expect(agentProcessOf(process.pid)).toBe(process.pid);
});
