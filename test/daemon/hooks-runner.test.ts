import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHooksRunner, type HooksRunnerOptions } from '../../src/daemon/side-channels/hooks-runner.js';
import { overflow, writeHookIn, written } from '../support/hook-events.js';
import { memoryLogger, type LogRecord, type MemoryLogger } from '../support/memory-logger.js';
import { waitFor } from '../support/wait-for.js';

const packageHooks = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'hooks');

let root: string;
let hooksDir: string;
/** What the hooks runner logged in this test. */
let log: MemoryLogger;
let logLines: LogRecord[];

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-hooks-')));
  hooksDir = path.join(root, '.ai-zen', 'hooks');
  await fs.mkdir(hooksDir, { recursive: true });
  log = memoryLogger();
  logLines = log.records;
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function runner(options: Partial<HooksRunnerOptions> = {}) {
  return createHooksRunner({ root, logger: log.logger, ...options });
}

const writeHook = (name: string, script: string, mode?: number) => writeHookIn(hooksDir, name, script, mode);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for a reaper is dead for our purpose.
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe('D1 hooks on pipeline events', () => {
  it('D1 a hook gets the event as JSON on stdin, runs in the project root, and its output is logged', async () => {
    await writeHook('on-overflow', '#!/bin/sh\ncat > stdin.json\npwd\necho "to stderr $AI_ZEN_EVENT $AI_ZEN_HOOK" >&2\n');
    const result = await runner().runForEvent(overflow);
    expect(result).toMatchObject({ hook: 'on-overflow', status: 'ok', success: true, exitCode: 0, error: null });
    expect(result!.output).toContain(root);
    expect(result!.output).toContain('to stderr session.overflowed on-overflow');
    expect(result!.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(await fs.readFile(path.join(root, 'stdin.json'), 'utf8'))).toEqual({
      v: 1,
      hook: 'on-overflow',
      event: 'session.overflowed',
      root,
      payload: overflow.payload,
    });
    expect(logLines).toContainEqual(
      expect.objectContaining({ msg: 'hook finished', hook: 'on-overflow', exitCode: 0, output: result!.output }),
    );
  });

  it('D1 a hook that fails is reported and logged, never thrown', async () => {
    await writeHook('on-handoff', '#!/bin/sh\necho broken\nexit 3\n');
    const result = await runner().runForEvent(written);
    expect(result).toMatchObject({ status: 'failed', success: false, exitCode: 3, error: 'exited with code 3', output: 'broken\n' });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'hook failed', hook: 'on-handoff', exitCode: 3 }));
  });

  it('D1 a hook past its timeout is killed with everything it started', async () => {
    await writeHook('on-overflow', '#!/bin/sh\ntrap "" TERM\nsleep 1000 &\necho $! > grandchild.pid\nwhile :; do sleep 1; done\n');
    const result = await runner({ timeoutMs: 1500 }).runForEvent(overflow);
    expect(result).toMatchObject({ status: 'timeout', success: false, exitCode: null, error: 'timed out after 1500 ms' });
    const grandchild = Number(await fs.readFile(path.join(root, 'grandchild.pid'), 'utf8'));
    await waitFor(() => !alive(grandchild), { message: 'the hook’s background child to be killed' });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'hook failed', status: 'timeout' }));
  });

  it('D1 a hook that ignores stdin and one that floods its output are both handled', async () => {
    await writeHook('on-overflow', '#!/bin/sh\nexit 0\n');
    expect(await runner().runForEvent(overflow)).toMatchObject({ status: 'ok' });
    await writeHook('on-handoff', '#!/bin/sh\nhead -c 200000 /dev/zero | tr "\\0" a\n');
    const result = await runner({ outputLimit: 1000 }).runForEvent(written);
    expect(result).toMatchObject({ status: 'ok' });
    expect(result!.output.startsWith('a'.repeat(1000) + '\n[… 199000 more bytes')).toBe(true);
  });
});

describe('D1 the example hooks shipped in hooks/', () => {
  it('D1 on-handoff.example appends the executor and document path to .ai-zen/logs/handoffs.log', async () => {
    await fs.copyFile(path.join(packageHooks, 'on-handoff.example'), path.join(hooksDir, 'on-handoff'));
    await fs.chmod(path.join(hooksDir, 'on-handoff'), 0o755);
    const hooks = runner({ env: { PATH: process.env.PATH } });
    expect(await hooks.runForEvent(written)).toMatchObject({ status: 'ok', output: `logged ${written.payload.path}\n` });
    expect(await hooks.runForEvent(written)).toMatchObject({ status: 'ok' });
    const log = (await fs.readFile(path.join(root, '.ai-zen', 'logs', 'handoffs.log'), 'utf8')).trim().split('\n');
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ offline \.ai-zen\/handoffs\/20260101-101010-abcd1234\.md$/);
  });

  it('D1 on-overflow.example records each overflow event', async () => {
    await fs.copyFile(path.join(packageHooks, 'on-overflow.example'), path.join(hooksDir, 'on-overflow'));
    await fs.chmod(path.join(hooksDir, 'on-overflow'), 0o755);
    expect(await runner({ env: { PATH: process.env.PATH } }).runForEvent(overflow)).toMatchObject({ status: 'ok' });
    const lines = (await fs.readFile(path.join(root, '.ai-zen', 'logs', 'overflows.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { v: 1, hook: 'on-overflow', event: 'session.overflowed', root, payload: overflow.payload },
    ]);
  });
});
