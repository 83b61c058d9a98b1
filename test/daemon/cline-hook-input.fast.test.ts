// Cline's PostToolUse payload read as ai-zen's Stop (cline-hooks.ts): the session is the root
// session's, a subagent's tool calls are not answered, and the hook answers ai-zen's ask only when
// the tool call just made wrote a handoff document — not when it names an older one.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readClineHookInput } from '../../src/daemon/sources/cline/cline-hooks.js';

describe("Cline's hook payload", () => {
  let base = '';
  let repo = '';
  const env = () => ({ CLINE_DIR: path.join(base, '.cline') });
  const payload = (command: string, startedAt: Date, extra: Record<string, unknown> = {}) => ({
    taskId: 'conv_1796469744999_lywpl39',
    sessionContext: { rootSessionId: '1796469744464_0e15e' },
    workspaceRoots: [repo],
    parent_agent_id: null,
    hookName: 'tool_result',
    tool_result: { id: 'call_4', name: 'run_commands', input: { commands: [command] }, startedAt: startedAt.toISOString() },
    ...extra,
  });
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-cline-hook-')));
    repo = path.join(base, 'repo');
    await fs.mkdir(path.join(repo, '.ai-zen', 'handoffs'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  test('names the root session’s transcript and folder; the ask is answered only by a call that wrote a handoff document', async () => {
    const transcript = path.join(base, '.cline', 'data', 'sessions', '1796469744464_0e15e', '1796469744464_0e15e.messages.json');
    const old = path.join(repo, '.ai-zen', 'handoffs', '20261205-100000-64_0e15e.md');
    await fs.writeFile(old, '# old');
    const longAgo = new Date(Date.now() - 60_000);
    await fs.utimes(old, longAgo, longAgo);
    expect(await readClineHookInput(payload(`cat '${old}'`, new Date()), env())).toEqual({
      transcript_path: transcript,
      session_id: '1796469744464_0e15e',
      cwd: repo,
      stop_hook_active: false,
    });

    const started = new Date();
    const written = '.ai-zen/handoffs/20261205-112225-64_0e15e.md';
    expect((await readClineHookInput(payload(`cat > ${written} <<'EOF'\n# Handoff\nEOF`, started), env()))?.stop_hook_active).toBe(false);
    await fs.writeFile(path.join(repo, written), '# Handoff\n');
    expect((await readClineHookInput(payload(`cat > ${written} <<'EOF'\n# Handoff\nEOF`, started), env()))?.stop_hook_active).toBe(true);
  });

  test('a subagent’s tool call, or a payload with no session, is not answered', async () => {
    expect(await readClineHookInput(payload('ls', new Date(), { parent_agent_id: 'agent_1' }), env())).toBeNull();
    expect(await readClineHookInput(payload('ls', new Date(), { sessionContext: {} }), env())).toBeNull();
    expect(await readClineHookInput('not an object', env())).toBeNull();
  });
});
