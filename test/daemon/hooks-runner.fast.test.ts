import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHooksRunner, HOOK_FOR_EVENT, type HooksRunnerOptions } from '../../src/daemon/side-channels/hooks-runner.js';
import { overflow, writeHookIn, written } from '../support/hook-events.js';
import { memoryLogger, type LogRecord, type MemoryLogger } from '../support/memory-logger.js';

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

describe('D1 hooks on pipeline events', () => {
  it('D1 hooks are named after events: overflow, before-handoff, handoff, migrated, commit', () => {
    expect(HOOK_FOR_EVENT).toEqual({
      'session.overflowed': 'on-overflow',
      'handoff.started': 'on-before-handoff',
      'handoff.written': 'on-handoff',
      'session.migrated': 'on-migrated',
      'handoff.committed': 'on-commit',
    });
  });

  it('D1 a missing hook is not run and not a warning; an event without a hook runs nothing', async () => {
    const hooks = runner();
    expect(await hooks.runForEvent(overflow)).toMatchObject({ status: 'missing', success: false, exitCode: null });
    expect(await hooks.runForEvent({ name: 'error', payload: { message: 'x' } })).toBeNull();
    expect(logLines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('D1 hooks that are not executable, writable by others, or not files are refused with the reason', async () => {
    const hooks = runner();
    await writeHook('on-overflow', '#!/bin/sh\ntouch ran\n', 0o644);
    expect(await hooks.runForEvent(overflow)).toMatchObject({ status: 'refused', error: expect.stringContaining('not executable') });
    await writeHook('on-overflow', '#!/bin/sh\ntouch ran\n', 0o777);
    expect(await hooks.runForEvent(overflow)).toMatchObject({
      status: 'refused',
      error: expect.stringContaining('writable by group or others'),
    });
    await fs.mkdir(path.join(hooksDir, 'on-handoff'));
    expect(await hooks.runForEvent(written)).toMatchObject({ status: 'refused', error: expect.stringContaining('not a regular file') });
    await expect(fs.stat(path.join(root, 'ran'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(logLines.filter((line) => line.msg === 'hook failed')).toHaveLength(3);
  });
});
