// FIFOs where agents keep their files. Anyone on the machine who can write into the shared Codex
// folder (or a cloned repo's tracked agent settings) can plant one: opened as a file, a FIFO waits
// for a writer for ever, and four such opens fill libuv's thread pool — every daemon stops seeing
// sessions, and stop hangs with it. Every agent's file is opened without waiting and read only when
// it is a regular file; a bad file fails alone, never the listing it is in.
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRegisteredLive } from '../../src/daemon/sources/kit/session-registry.js';
import { readClaudeEvidence } from '../../src/daemon/sources/claude-code/claude-evidence.js';
import { readCodexEvidence } from '../../src/daemon/sources/codex/codex-evidence.js';
import { readRolloutMeta } from '../../src/daemon/sources/codex/codex-rollout-meta.js';
import { readCopilotEvidence } from '../../src/daemon/sources/copilot/copilot-evidence.js';
import { readWorkspaceCwd } from '../../src/daemon/sources/copilot/copilot-session-folders.js';
import { readGeminiEvidence } from '../../src/daemon/sources/gemini/gemini-evidence.js';
import { readOpencodeEvidence } from '../../src/daemon/sources/opencode/opencode-evidence.js';
import { readPiEvidence } from '../../src/daemon/sources/pi/pi-evidence.js';
import { readQwenEvidence } from '../../src/daemon/sources/qwen-code/qwen-evidence.js';
import { NotRegularFileError } from '../../src/fs/open-regular-file.js';
import { readPreviousDocument } from '../../src/handoff/previous-document.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const run = promisify(execFile);

/** Lets go of any reader still waiting in a FIFO's open() (before the fix, one would wait for ever). */
function releaseFifo(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody is waiting on it.
  }
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const usage = (tokens: number) => ({
  input_tokens: tokens,
  cached_input_tokens: 0,
  output_tokens: 0,
  reasoning_output_tokens: 0,
  total_tokens: tokens,
});
const tokenCount = (tokens: number) => ({
  timestamp: new Date().toISOString(),
  type: 'event_msg',
  payload: { type: 'token_count', info: { last_token_usage: usage(tokens), model_context_window: 258_400 } },
});
const jsonl = (...lines: unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

describe('FIFOs among the agents’ files', { timeout: 120_000 }, () => {
  const fifos: string[] = [];
  let daemon: DaemonRepo | undefined;
  let base: string | undefined;
  beforeEach(() => {
    fifos.length = 0;
  });
  afterEach(async () => {
    for (const fifo of fifos) releaseFifo(fifo);
    await daemon?.cleanup();
    if (base) await fs.rm(base, { recursive: true, force: true });
    daemon = base = undefined;
  });

  it('five FIFOs and a folder named rollout-*.jsonl in the shared Codex day folder: the repo’s own rollout is still seen and handed off, and stop ends the daemon promptly', async () => {
    daemon = await makeDaemonRepo();
    const day = path.join(daemon.env.CODEX_HOME!, 'sessions', ...new Date().toISOString().slice(0, 10).split('-'));
    await fs.mkdir(day, { recursive: true });
    for (let n = 1; n <= 5; n += 1) {
      const fifo = path.join(day, `rollout-2026-01-01T00-00-0${n}-${uuid(900 + n)}.jsonl`);
      await run('mkfifo', [fifo]);
      fifos.push(fifo);
    }
    await fs.mkdir(path.join(day, `rollout-2026-01-01T00-00-09-${uuid(999)}.jsonl`));
    const id = uuid(42);
    const rollout = path.join(day, `rollout-2026-01-01T00-00-10-${id}.jsonl`);
    const meta = { timestamp: new Date().toISOString(), type: 'session_meta', payload: { id, cwd: daemon.root } };
    await fs.writeFile(rollout, jsonl(meta, tokenCount(20_000)));
    await daemon.start();

    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens === 20_000), {
      timeoutMs: 30_000,
      message: 'the repo’s Codex session in status',
    });
    // Past 95% of its window: handed off at once (no grace period to wait out).
    await fs.appendFile(rollout, jsonl(tokenCount(250_000)));
    await waitFor(async () => (await handoffDocs(daemon!.root)).length === 1, {
      timeoutMs: 45_000,
      message: 'the Codex session handed off',
    });
    const status = await daemon.status();
    expect(status.sessions.filter((session) => session.agent === 'codex').map((session) => session.id)).toEqual([id]);

    const started = Date.now();
    const stop = await daemon.daemon(['stop'], { timeoutMs: 20_000 });
    expect(stop.code, stop.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await daemon.running()).toBe(false);
  });

  it('every agent’s transcript reader refuses a FIFO at once, as a file that is not regular, instead of waiting on it', async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-fifo-readers-')));
    const fifo = path.join(base, 'rollout-2026-01-01T00-00-00-x.jsonl');
    await run('mkfifo', [fifo]);
    fifos.push(fifo);
    const readers: [string, () => Promise<unknown>][] = [
      ['claude', () => readClaudeEvidence(fifo)],
      ['codex', () => readCodexEvidence(fifo, base!)],
      ['copilot', () => readCopilotEvidence(fifo, base!)],
      ['gemini', () => readGeminiEvidence(fifo, base!)],
      ['pi', () => readPiEvidence(fifo, {}, base!)],
      ['qwen', () => readQwenEvidence(fifo)],
    ];
    for (const [agent, read] of readers) {
      const error = await read().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(NotRegularFileError.isInstance(error), `${agent}: ${String(error)}`).toBe(true);
    }
    // opencode's sessions are rows of a database: a FIFO at its path is refused before SQLite opens it.
    const database = path.join(base, 'opencode.db');
    await run('mkfifo', [database]);
    fifos.push(database);
    const refused = await readOpencodeEvidence(database, 'ses_any', base).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(NotRegularFileError.isInstance(refused), `opencode: ${String(refused)}`).toBe(true);
    // The readers that decide whose a file is, or whether a client still runs, say "not this one".
    expect(await readRolloutMeta(fifo)).toEqual({ unreadable: 'ENOTREGULAR' });
    expect(await readWorkspaceCwd(fifo)).toBeNull();
    const claudeSessions = path.join(base, 'claude-sessions');
    await fs.mkdir(claudeSessions);
    // pid 1 is always alive: its record is read.
    const record = path.join(claudeSessions, '1.json');
    await run('mkfifo', [record]);
    fifos.push(record);
    expect(await isRegisteredLive(claudeSessions, 'any-session')).toBe(false);
    // The predecessor a successor's transcript names, in the project's handoff folder: no document.
    const handoffs = path.join(base, '.ai-zen', 'handoffs');
    await fs.mkdir(handoffs, { recursive: true });
    const predecessor = path.join(handoffs, '20261204-101500-00000001.md');
    await run('mkfifo', [predecessor]);
    fifos.push(predecessor);
    const started = [
      { message: { role: 'user' as const, content: 'Read the handoff document .ai-zen/handoffs/20261204-101500-00000001.md and go on.' } },
    ];
    expect(await readPreviousDocument(base, started)).toBeNull();
  });

  it('install-hooks with a FIFO at the settings path ends at once, non-zero, with one clear line; nothing is written', async () => {
    const repo = await makeTempRepo();
    try {
      const settings = path.join(repo.root, '.claude', 'settings.local.json');
      await fs.mkdir(path.dirname(settings), { recursive: true });
      await run('mkfifo', [settings]);
      fifos.push(settings);
      const codexHome = path.join(repo.home, 'codex-home');
      await fs.mkdir(codexHome, { recursive: true });
      const codexConfig = path.join(codexHome, 'config.toml');
      await run('mkfifo', [codexConfig]);
      fifos.push(codexConfig);
      const env = { AI_ZEN_HOME: repo.home, CODEX_HOME: codexHome, HOME: repo.home };
      const claude = await runCli(['install-hooks', 'claude'], { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 15_000 });
      expect(claude.code).toBe(1);
      expect(claude.stderr).toBe('ai-zen-daemon: .claude/settings.local.json is a FIFO, not a regular file; nothing was changed\n');
      expect((await fs.lstat(settings)).isFIFO()).toBe(true);
      const codex = await runCli(['install-hooks', 'codex'], { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 15_000 });
      expect(codex.code).toBe(1);
      expect(codex.stderr).toBe(`ai-zen-daemon: ${codexConfig} is a FIFO, not a regular file; nothing was changed\n`);
    } finally {
      await repo.cleanup();
    }
  });
});
