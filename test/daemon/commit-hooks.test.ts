// The git hooks run around the handoff commit go through the one process runner.
// What a user notices: a hook that hangs does not hold the commit (and whatever it started) forever.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeHookFailure, runHook } from '../../src/daemon/committing/commit-hooks.js';
import { processAlive } from '../support/process-alive.js';
import { waitFor } from '../support/wait-for.js';

let root: string;
let hooksDir: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-commit-hooks-')));
  hooksDir = path.join(root, 'hooks');
  await fs.mkdir(hooksDir);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('git hooks around the handoff commit', () => {
  it('D3 a pre-commit hook that hangs is killed with everything it started at its deadline, and the refusal says so in one line', async () => {
    const hook = path.join(hooksDir, 'pre-commit');
    await fs.writeFile(hook, '#!/bin/sh\nsleep 1000 &\necho $! > linter.pid\necho "linting"\nwait\n', { mode: 0o755 });
    const outcome = await runHook('pre-commit', { hooksDir, cwd: root, env: process.env, timeoutMs: 3000 });
    expect(outcome).toMatchObject({ ran: true, ok: false, timedOut: true, output: 'linting\n' });
    if (!outcome.ran) throw new Error('the hook did not run');
    expect(describeHookFailure('pre-commit', outcome)).toBe('the pre-commit hook did not finish in time');
    const linter = Number(await fs.readFile(path.join(root, 'linter.pid'), 'utf8'));
    await waitFor(() => !processAlive(linter), { message: 'the hook’s background child to be killed' });
  });

  it('D3 a hook that leaves a background child holding its output is judged by its own exit, as git does', async () => {
    const hook = path.join(hooksDir, 'post-commit');
    await fs.writeFile(hook, '#!/bin/sh\nsleep 1000 &\necho $! > watcher.pid\necho "started a watcher"\nexit 0\n', { mode: 0o755 });
    try {
      const outcome = await runHook('post-commit', { hooksDir, cwd: root, env: process.env, timeoutMs: 30_000 });
      expect(outcome).toEqual({ ran: true, ok: true, exitCode: 0, output: 'started a watcher\n', timedOut: false });
    } finally {
      const watcher = Number(await fs.readFile(path.join(root, 'watcher.pid'), 'utf8'));
      if (processAlive(watcher)) process.kill(watcher, 'SIGKILL');
    }
  });

  it('D3 a hook gets its arguments, GIT_EDITOR=: and an empty GIT_PREFIX, and its exit code decides', async () => {
    const hook = path.join(hooksDir, 'commit-msg');
    await fs.writeFile(hook, '#!/bin/sh\necho "args=$1 editor=$GIT_EDITOR prefix=[$GIT_PREFIX]"\nexit 1\n', { mode: 0o755 });
    const outcome = await runHook('commit-msg', { hooksDir, cwd: root, env: { ...process.env, GIT_PREFIX: 'sub/' }, args: ['MSG'] });
    expect(outcome).toEqual({ ran: true, ok: false, exitCode: 1, output: 'args=MSG editor=: prefix=[]\n', timedOut: false });
    if (!outcome.ran) throw new Error('the hook did not run');
    expect(describeHookFailure('commit-msg', outcome)).toBe('the commit-msg hook failed with exit code 1: args=MSG editor=: prefix=[]');
  });
});
