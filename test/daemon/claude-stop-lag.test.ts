// Claude Code writes its transcript in batches, and its Stop hook can run before the turn's last
// lines are written: the reply that crossed is then not in the transcript yet. The hook's input says
// which reply the turn ended on (`last_assistant_message`); the daemon reads on until the transcript
// has it, so the crossing is taken at this Stop rather than missed. A transcript fixture where Claude
// Code keeps it (no real client: the lag is made here, not hoped for), the real daemon and hook entry.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { claudeAssistant as assistant, claudeLines, claudeUser as user } from '../support/claude-transcript-lines.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const SESSION = '21111111-2222-4333-8444-555555555555';
const HOOK_ENTRY = path.join(path.dirname(DAEMON_BIN), 'ai-zen-hook.cjs');
const FINAL = 'The off-by-one is fixed; the tests pass.';

let daemon: DaemonRepo | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

async function setup(): Promise<{ daemon: DaemonRepo; transcript: string; log: string }> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-stop-lag-'));
  const claudeHome = path.join(base, 'claude');
  daemon = await makeDaemonRepo({
    env: { CLAUDE_CONFIG_DIR: claudeHome },
    config: { agents: { 'claude-code': { graceSeconds: 0 } } },
    trusted: true,
  });
  const folder = path.join(claudeHome, 'projects', claudeSlug(daemon.root));
  await fs.mkdir(folder, { recursive: true });
  const transcript = path.join(folder, `${SESSION}.jsonl`);
  await fs.writeFile(
    transcript,
    lines(daemon.root, [
      user('Fix the off-by-one in src/parse.ts'),
      assistant('msg_1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'true' } }], 20_000),
    ]),
  );
  // A Claude process has the session open (its registry entry; this test's own pid is alive), with ai-zen's hooks.
  await fs.mkdir(path.join(claudeHome, 'sessions'), { recursive: true });
  await fs.writeFile(
    path.join(claudeHome, 'sessions', `${process.pid}.json`),
    JSON.stringify({ pid: process.pid, sessionId: SESSION, cwd: daemon.root }),
  );
  await daemon.start();
  expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
  await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.promptTokens === 20_000), {
    timeoutMs: 20_000,
    message: 'the Claude session in status',
  });
  return { daemon, transcript, log: path.join(daemon.root, '.ai-zen/logs/daemon.log') };
}

describe('a Claude Stop hook that runs before the turn’s last lines are written', () => {
  test('the crossing reply written while the hook waits is taken at this Stop: the agent is asked for its own document', async () => {
    const { daemon, transcript, log } = await setup();
    const stop = runHook(daemon, 'Stop', {
      session_id: SESSION,
      transcript_path: transcript,
      cwd: daemon.root,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: `${FINAL}\n`,
    });
    // The hook is waiting (it says so in the log); only now does "Claude" write the turn's last lines.
    await waitFor(async () => (await fs.readFile(log, 'utf8')).includes('the Stop hook waits for the transcript to have the reply'), {
      timeoutMs: 20_000,
      message: 'the Stop hook to wait for the last reply',
    });
    await fs.appendFile(
      transcript,
      lines(daemon.root, [
        { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '' }] } },
        assistant('msg_2', [{ type: 'text', text: FINAL }], 146_000),
      ]),
    );
    const answer = await stop;
    if (answer.stdout === '') console.log(await fs.readFile(log, 'utf8'));
    expect(answer.code).toBe(0);
    // Asked as Claude Code takes feedback that is not an error: the turn goes on to write the document.
    const output = JSON.parse(answer.stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: string } };
    expect(output.hookSpecificOutput?.hookEventName).toBe('Stop');
    expect(output.hookSpecificOutput?.additionalContext).toContain('This session has used 73% of its context window');
  }, 60_000);

  test('a Stop whose reply is already written answers at once, without waiting', async () => {
    const { daemon, transcript, log } = await setup();
    await fs.appendFile(transcript, lines(daemon.root, [assistant('msg_2', [{ type: 'text', text: 'Nothing to do.' }], 21_000)]));
    const answer = await runHook(daemon, 'Stop', {
      session_id: SESSION,
      transcript_path: transcript,
      cwd: daemon.root,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'Nothing   to do.',
    });
    expect(answer).toMatchObject({ code: 0, stdout: '' });
    expect(await fs.readFile(log, 'utf8')).not.toContain('the Stop hook waits');
  }, 60_000);
});

const lines = (cwd: string, entries: object[]) => claudeLines(cwd, SESSION, entries);

function runHook(repo: DaemonRepo, event: string, input: object): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'claude', event], { cwd: repo.root, env: { ...process.env, ...repo.env } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify(input));
  });
}
