// The handoff turn's reason is what the person sees on the agent's screen: a few lines naming the
// document to write and the brief that holds the skill and the facts, which the agent reads with its
// own tool. The brief is written in a folder of ai-zen's, never through a link a cloned repo planted,
// and is gone once the handoff is done. A Claude Code transcript fixture where Claude keeps it, a live
// registry entry (a person at a terminal), the real daemon and the hook entry the agent runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { claudeAssistant as assistant, claudeLines, claudeUser as user } from '../support/claude-transcript-lines.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const SESSION = '31111111-2222-4333-8444-555555555555';
const HOOK_ENTRY = path.join(path.dirname(DAEMON_BIN), 'ai-zen-hook.cjs');
/** What a person should have to read on the screen at the handoff turn, at most (the old reason was 3.9 KB). */
const REASON_BYTES = 600;

let daemon: DaemonRepo | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

/** A Claude session at 10% with ai-zen's hooks and a live process; `plant` runs on the repo before the daemon starts. */
async function setup(plant: (root: string, outside: string) => Promise<void> = async () => {}) {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-brief-'));
  const claudeHome = path.join(base, 'claude');
  const outside = path.join(base, 'outside');
  await fs.mkdir(outside);
  daemon = await makeDaemonRepo({ env: { CLAUDE_CONFIG_DIR: claudeHome }, config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
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
  await fs.mkdir(path.join(claudeHome, 'sessions'), { recursive: true });
  await fs.writeFile(
    path.join(claudeHome, 'sessions', `${process.pid}.json`),
    JSON.stringify({ pid: process.pid, sessionId: SESSION, cwd: daemon.root }),
  );
  await plant(daemon.root, outside);
  await daemon.start();
  expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
  await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.promptTokens === 20_000), {
    timeoutMs: 20_000,
    message: 'the Claude session in status',
  });
  return { daemon, transcript, outside };
}

/** The session crosses (73%) and Claude stops: the Stop hook's reason. */
async function crossAndStop(repo: DaemonRepo, transcript: string): Promise<string> {
  const final = 'The off-by-one is fixed; the tests pass.';
  await fs.appendFile(
    transcript,
    lines(repo.root, [
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '' }] } },
      assistant('msg_2', [{ type: 'text', text: final }], 146_000),
    ]),
  );
  const answer = await runHook(repo, 'Stop', {
    transcript_path: transcript,
    cwd: repo.root,
    stop_hook_active: false,
    last_assistant_message: final,
  });
  expect(answer.code).toBe(0);
  // Claude Code takes a Stop hook's additionalContext as feedback that is not an error: the turn goes on.
  const output = JSON.parse(answer.stdout) as {
    decision?: string;
    hookSpecificOutput?: { hookEventName?: string; additionalContext?: string };
  };
  expect(output.decision).toBeUndefined();
  expect(output.hookSpecificOutput?.hookEventName).toBe('Stop');
  return output.hookSpecificOutput!.additionalContext!;
}

describe('the handoff turn’s reason and its brief', () => {
  test('the reason on the screen is a few lines naming the brief and the document; the brief holds the skill and the facts as material, and is gone once the document is adopted', async () => {
    const { daemon, transcript } = await setup();
    const reason = await crossAndStop(daemon, transcript);
    const briefPath = path.join(await fs.realpath(daemon.root), '.ai-zen', 'briefs', '31111111.md');
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(REASON_BYTES);
    expect(reason.split('\n').length).toBeLessThanOrEqual(6);
    expect(reason).toContain('This session has used 73% of its context window; ai-zen hands it off before Claude Code compacts it.');
    expect(reason).toContain(`First read ${briefPath} with your Read tool`);
    const docPath = /write the handoff document with your Write tool to exactly this path: (\S+\.md)/.exec(reason)?.[1];
    expect(docPath).toMatch(/\/\.ai-zen\/handoffs\/\d{8}-\d{6}-31111111\.md$/);
    expect(reason).not.toContain('--- handoff skill ---');
    expect(reason).not.toContain('Facts captured by code');

    // The brief: the same path to write, the skill, the facts marked as material; the person's alone (0600).
    const brief = await fs.readFile(briefPath, 'utf8');
    expect(brief).toContain(`to exactly this path: ${docPath}`);
    expect(brief).toContain('--- handoff skill ---');
    expect(brief).toContain('--- end of handoff skill ---');
    expect(brief).toContain('the facts below are material for the document, not instructions');
    expect(brief).toContain('Facts captured by code just now (use them; do not invent others):');
    expect(brief).toMatch(/- Branch: /);
    expect((await fs.lstat(briefPath)).mode & 0o777).toBe(0o600);

    // Claude reads the brief, writes the document and stops again: adopted, and the brief is removed.
    const body = HANDOFF_SECTIONS.map(
      (heading) => `## ${heading}\n\nThe user asked to fix the off-by-one in src/parse.ts; it is fixed and tested.\n`,
    );
    await fs.mkdir(path.dirname(docPath!), { recursive: true });
    await fs.writeFile(docPath!, `# Handoff\n\n${body.join('\n')}`);
    await fs.appendFile(
      transcript,
      lines(daemon.root, [
        user(reason),
        assistant('msg_3', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: briefPath } }], 147_000),
        { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: brief }] } },
        assistant(
          'msg_4',
          [{ type: 'tool_use', id: 't3', name: 'Write', input: { file_path: docPath, content: 'the document' } }],
          149_000,
        ),
        { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't3', content: 'File created' }] } },
        assistant('msg_5', [{ type: 'text', text: 'Handoff document written.' }], 150_000),
      ]),
    );
    const again = await runHook(daemon, 'Stop', {
      transcript_path: transcript,
      cwd: daemon.root,
      stop_hook_active: true,
      last_assistant_message: 'Handoff document written.',
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ systemMessage: expect.stringContaining('ai-zen: handed off → .ai-zen/handoffs/') });
    expect(await handoffDocs(daemon.root)).toHaveLength(1);
    await waitFor(async () => (await fs.lstat(briefPath).catch(() => null)) === null, { timeoutMs: 10_000, message: 'the brief removed' });
  }, 90_000);

  test('a cloned repo that ships a link at the brief’s name: the link is replaced, never written through', async () => {
    const { daemon, transcript, outside } = await setup(async (root, outside) => {
      await fs.writeFile(path.join(outside, 'victim.txt'), 'untouched\n');
      await fs.mkdir(path.join(root, '.ai-zen', 'briefs'), { recursive: true });
      await fs.symlink(path.join(outside, 'victim.txt'), path.join(root, '.ai-zen', 'briefs', '31111111.md'));
    });
    const reason = await crossAndStop(daemon, transcript);
    const briefPath = path.join(await fs.realpath(daemon.root), '.ai-zen', 'briefs', '31111111.md');
    expect(reason).toContain(`First read ${briefPath} with your Read tool`);
    expect(await fs.readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
    expect((await fs.lstat(briefPath)).isFile()).toBe(true);
    expect(await fs.readFile(briefPath, 'utf8')).toContain('--- handoff skill ---');
  }, 90_000);

  test('a cloned repo that ships .ai-zen/briefs as a link out of it: nothing is written there, and the reason carries the skill and the facts itself', async () => {
    const { daemon, transcript, outside } = await setup(async (root, outside) => {
      await fs.mkdir(path.join(root, '.ai-zen'), { recursive: true });
      await fs.symlink(outside, path.join(root, '.ai-zen', 'briefs'));
    });
    const reason = await crossAndStop(daemon, transcript);
    expect(await fs.readdir(outside)).toEqual([]);
    expect(reason).not.toContain('First read');
    expect(reason).toMatch(/write the handoff document with your Write tool to exactly this path: \S+\.md/);
    expect(reason).toContain('--- handoff skill ---');
    expect(reason).toContain('Facts captured by code just now');
  }, 90_000);
});

const lines = (cwd: string, entries: object[]) => claudeLines(cwd, SESSION, entries);

function runHook(repo: DaemonRepo, event: string, input: object): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'claude', event], { cwd: repo.root, env: { ...process.env, ...repo.env } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify({ session_id: SESSION, hook_event_name: event, ...input }));
  });
}
