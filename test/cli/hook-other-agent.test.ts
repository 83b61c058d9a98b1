// Cursor runs Claude Code's hooks from .claude/settings*.json when its third-party hooks are on, with
// Cursor's own input (conversation_id, generation_id, cursor_version, workspace_roots, "stop"): ai-zen's
// Claude hook, run that way, prints nothing and never blocks Cursor's stop. The lean hook entry is run
// as Cursor runs it, against a real daemon watching a Claude transcript that crossed its threshold.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { claudeAssistant, claudeLines, claudeUser } from '../support/claude-transcript-lines.js';
import { runCli } from '../support/run-cli.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, type DaemonRepo } from '../daemon/daemon-harness.js';

const LEAN_HOOK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli', 'ai-zen-hook.js');
const SESSION = '11111111-2222-4333-8444-555555555555';

let daemon: DaemonRepo | null = null;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
});

/** Cursor's hook input: its common fields, its own event name, and a transcript path. */
function cursorInput(root: string, event: string, transcript: string): string {
  return JSON.stringify({
    conversation_id: 'cdefee2d-2727-4b73-bf77-d9d830f31d2a',
    generation_id: '26b45fb6-bdea-439c-b2dc-5e97ee00ecea',
    model: 'claude-4.5-sonnet',
    hook_event_name: event,
    cursor_version: '2.0.77',
    workspace_roots: [root],
    user_email: null,
    transcript_path: transcript,
    ...(event === 'stop' ? { status: 'completed', loop_count: 0 } : {}),
  });
}

describe('a Claude hook run by Cursor', () => {
  test('Cursor’s stop and sessionStart get nothing from ai-zen’s Claude hook: no block, no context, while Claude’s own Stop is blocked', async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-cursor-'));
    const claudeHome = path.join(base, 'claude');
    daemon = await makeDaemonRepo({ env: { CLAUDE_CONFIG_DIR: claudeHome }, config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
    const root = daemon.root;
    const hook = (event: string, input: string) => runCli(['claude', event], { cwd: root, env: daemon!.env, bin: LEAN_HOOK, input });

    // No daemon yet: a Claude session is told it is unprotected; Cursor's session start is told nothing.
    const cursorTranscript = path.join(base, 'cursor', 'agent-transcripts', 'cdefee2d.txt');
    const claudeStart = await hook(
      'SessionStart',
      JSON.stringify({ transcript_path: path.join(root, 'x.jsonl'), cwd: root, source: 'startup' }),
    );
    expect(claudeStart.stdout).toContain('NOT protected');
    expect(await hook('SessionStart', cursorInput(root, 'sessionStart', cursorTranscript))).toMatchObject({ code: 0, stdout: '' });

    // A Claude session of this repo that crossed its threshold.
    const folder = path.join(claudeHome, 'projects', claudeSlug(root));
    await fs.mkdir(folder, { recursive: true });
    const transcript = path.join(folder, `${SESSION}.jsonl`);
    await fs.writeFile(transcript, claudeLines(root, SESSION, [claudeUser('Fix the parser'), claudeAssistant('m1', WORKING, 20_000)]));
    expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
    await daemon.start();
    const promptTokens = async (tokens: number) =>
      (await daemon!.status()).sessions.some((session) => session.agent === 'claude-code' && session.promptTokens === tokens);
    await waitFor(() => promptTokens(20_000), { timeoutMs: 20_000, message: 'the Claude session in status' });
    await fs.appendFile(transcript, claudeLines(root, SESSION, [claudeAssistant('m2', WORKING, 142_000)]));
    await waitFor(() => promptTokens(142_000), { timeoutMs: 20_000, message: 'the crossing read' });

    // Cursor stops, its input naming that transcript: exit 0, nothing printed, so Cursor's stop goes through.
    expect(await hook('Stop', cursorInput(root, 'stop', transcript))).toMatchObject({ code: 0, stdout: '' });
    expect(await hook('SessionStart', cursorInput(root, 'sessionStart', transcript))).toMatchObject({ code: 0, stdout: '' });
    // An event name spelt another agent's way is not Claude's either.
    expect(await hook('Stop', JSON.stringify({ transcript_path: transcript, cwd: root, hook_event_name: 'stop' }))).toMatchObject({
      code: 0,
      stdout: '',
    });
    // Claude's own Stop for the same session is still asked to write its document.
    const claudeStop = await hook(
      'Stop',
      JSON.stringify({ transcript_path: transcript, cwd: root, hook_event_name: 'Stop', stop_hook_active: false }),
    );
    expect(JSON.parse(claudeStop.stdout)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'Stop', additionalContext: expect.stringContaining('[ai-zen handoff]') },
    });
  }, 120_000);
});

const WORKING = [{ type: 'text', text: 'Working on it.' }];
