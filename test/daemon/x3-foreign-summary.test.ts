// X3 §4 the summary executor for another agent's session: a Claude Code transcript (a fixture written
// where Claude Code keeps it, no real client) crosses handoffAt in a repo whose user config names a
// model (the fake OpenAI server); the daemon hands the transcript's history to the one summary
// executor, checks and commits its document — and downgrades to offline when the model fails.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import type { AnyEvent } from '../../src/events.js';
import { contentText, httpError, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { claudeAssistant as assistant, claudeLines, claudeUser as user } from '../support/claude-transcript-lines.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN, handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

const SESSION = '11111111-2222-4333-8444-555555555555';
const REQUEST = 'Fix the off-by-one in src/parse.ts and keep the tests green';
const SECTIONS = HANDOFF_SECTIONS;

let model: FakeOpenAI;
let daemon: DaemonRepo | null = null;
let unhandle: () => void = () => {};

beforeAll(async () => {
  model = await startFakeOpenAI();
});
afterAll(async () => {
  await model.close();
});
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
  unhandle();
  model.requests.length = 0;
});

/** A repo watched by a daemon whose user config (in its AI_ZEN_HOME: no trust needed) names the fake model. */
async function setup(): Promise<{ daemon: DaemonRepo; transcript: string; seen: AnyEvent[] }> {
  const base = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'ai-zen-foreign-summary-'));
  const claudeHome = path.join(base, 'claude');
  daemon = await makeDaemonRepo({ env: { CLAUDE_CONFIG_DIR: claudeHome }, config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
  await fs.writeFile(
    path.join(daemon.repo.home, 'config.json'),
    JSON.stringify({ baseURL: model.baseURL, apiKey: 'sk-test', model: 'summary-model', maxContextTokens: 32_000 }),
  );
  const folder = path.join(claudeHome, 'projects', claudeSlug(daemon.root));
  await fs.mkdir(folder, { recursive: true });
  const transcript = path.join(folder, `${SESSION}.jsonl`);
  // Under the threshold first: a session first seen above it would wait for 10 more points.
  await fs.writeFile(
    transcript,
    lines(daemon.root, [
      user(REQUEST),
      assistant(
        'msg_1',
        [
          {
            type: 'tool_use',
            id: 't1',
            name: 'Edit',
            input: { file_path: path.join(daemon.root, 'src/parse.ts'), old_string: 'i <= n', new_string: 'i < n' },
          },
        ],
        20_000,
      ),
    ]),
  );
  await daemon.start();
  const client = await daemon.connect();
  const seen: AnyEvent[] = [];
  await client.subscribe((event: AnyEvent) => seen.push(event));
  await waitFor(
    async () => (await daemon!.status()).sessions.some((session) => session.agent === 'claude-code' && session.promptTokens === 20_000),
    {
      timeoutMs: 20_000,
      message: 'the Claude session in status',
    },
  );
  return { daemon, transcript, seen };
}

/** The reply that crosses 70% of Claude's 200k window. */
async function cross(root: string, transcript: string): Promise<void> {
  await fs.appendFile(
    transcript,
    lines(root, [
      {
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'The file src/parse.ts has been updated.' }],
        },
      },
      assistant('msg_2', [{ type: 'text', text: 'The off-by-one is fixed; the tests pass.' }], 142_000),
    ]),
  );
}

const lines = (cwd: string, entries: object[]) => claudeLines(cwd, SESSION, entries);

async function committed(daemon: DaemonRepo, seen: AnyEvent[]): Promise<void> {
  await waitFor(() => seen.some((event) => event.name === 'handoff.committed'), {
    timeoutMs: 60_000,
    message: 'the handoff to be committed',
  }).catch(async (error) => {
    console.log(await fs.readFile(path.join(daemon.root, '.ai-zen/logs/daemon.log'), 'utf8'));
    throw error;
  });
}

describe('X3 the summary executor for another agent’s session', () => {
  test('by hand, with a model configured: `handoff <prefix> --goal` of a Claude Code session under its threshold is written by the summary executor towards the goal, from the transcript, which is only read', async () => {
    const summary = `# Handoff\n\n${SECTIONS.map((heading) => `## ${heading}\n\nFrom the summary model: next, cover src/parse.ts with tests.\n`).join('\n')}`;
    unhandle = model.handle(() => reply().text(summary).usage({ prompt_tokens: 900, completion_tokens: 300 }));
    const { daemon, transcript } = await setup();
    const before = await fs.readFile(transcript, 'utf8');
    const handedOff = await daemon.daemon(['handoff', SESSION.slice(0, 5), '--goal', 'cover src/parse.ts with tests']);
    expect(handedOff.stderr).toBe('');
    expect(handedOff.code).toBe(0);
    expect(handedOff.stdout).toMatch(
      /^\.ai-zen\/handoffs\/\d{8}-\d{6}-11111111\.md\n {2}written by summary for claude-code session 11111111\n {2}continue with: claude "Read /,
    );
    expect(model.requests).toHaveLength(1);
    const asked = model.requests[0]!.messages.map((message) => contentText(message.content)).join('\n');
    expect(asked).toContain(REQUEST);
    expect(asked).toContain('cover src/parse.ts with tests');
    expect(await fs.readFile(transcript, 'utf8')).toBe(before);
  });

  test('X3 a model is configured: the crossing of a Claude Code session sends one summary request holding its last user request; the committed document is the summary’s and says executor summary', async () => {
    const summary = `# Handoff\n\n${SECTIONS.map((heading) => `## ${heading}\n\nFrom the summary model: the user asked to fix the off-by-one in \`src/parse.ts\`; it is fixed and the tests pass.\n`).join('\n')}`;
    unhandle = model.handle(() => reply().text(summary).usage({ prompt_tokens: 900, completion_tokens: 300 }));
    const { daemon, transcript, seen } = await setup();
    const before = await fs.readFile(transcript, 'utf8');
    await cross(daemon.root, transcript);
    await committed(daemon, seen);

    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.body.model).toBe('summary-model');
    expect(model.requests[0]!.messages.map((message) => contentText(message.content)).join('\n')).toContain(REQUEST);
    const [doc] = await handoffDocs(daemon.root);
    expect(await fs.readFile(path.join(daemon.root, doc!), 'utf8')).toContain('From the summary model');
    const written = seen.find((event) => event.name === 'handoff.written')!;
    expect(written.payload).toMatchObject({
      agent: 'claude-code',
      executor: 'summary',
      path: doc,
      cost: { requests: 1, prompt_tokens: 900, completion_tokens: 300 },
    });
    expect((written.payload as { successorCommand: string }).successorCommand).toContain(
      `claude "Read the handoff document ${doc} (the previous session's record)`,
    );
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: daemon.root, encoding: 'utf8' })).toContain('(summary)');
    const { handoffs } = await daemon.status();
    expect(handoffs.at(-1)).toMatchObject({ path: doc, agent: 'claude-code', executor: 'summary', state: 'committed' });
    expect(handoffs.at(-1)!.downgrades).toBeUndefined();
    const listed = await daemon.daemon(['handoffs']);
    expect(listed.stdout).toContain(`${doc}  summary`);
    expect(listed.stdout).toContain('checked ✓');
    // The foreign transcript is only ever read.
    expect((await fs.readFile(transcript, 'utf8')).startsWith(before)).toBe(true);
  }, 120_000);

  test('X3 the model fails (HTTP 500): the document is written offline, and the downgrade from summary is recorded and announced', async () => {
    unhandle = model.handle(() => httpError(500));
    const { daemon, transcript, seen } = await setup();
    await cross(daemon.root, transcript);
    await committed(daemon, seen);

    expect(model.requests).toHaveLength(1);
    const [doc] = await handoffDocs(daemon.root);
    const text = await fs.readFile(path.join(daemon.root, doc!), 'utf8');
    expect(text).toContain(REQUEST);
    expect(seen.find((event) => event.name === 'handoff.downgraded')?.payload).toMatchObject({ from: 'summary', to: 'offline' });
    expect(seen.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'claude-code', executor: 'offline' });
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: daemon.root, encoding: 'utf8' })).toContain('(offline)');
    const { handoffs } = await daemon.status();
    expect(handoffs.at(-1)).toMatchObject({ path: doc, executor: 'offline', state: 'committed' });
    expect(handoffs.at(-1)!.downgrades).toEqual([{ from: 'summary', reason: expect.stringContaining('the summary call failed') }]);
    expect((await daemon.daemon(['handoffs'])).stdout).toContain(`${doc}  offline (after summary failed: the summary call failed`);
  }, 120_000);

  test('X3 PreCompact with a model configured: the document is written offline within the hook’s time limit, and no model request is made', async () => {
    unhandle = model.handle(() => reply().text('not asked').usage({ prompt_tokens: 1, completion_tokens: 1 }));
    const { daemon, transcript, seen } = await setup();
    // Claude is about to compact by itself (auto) while the daemon has no document for this session.
    const hook = await runHook(daemon, 'PreCompact', {
      transcript_path: transcript,
      cwd: daemon.root,
      hook_event_name: 'PreCompact',
      trigger: 'auto',
    });
    expect(hook).toEqual({ code: 0, stdout: '' });
    await committed(daemon, seen);
    expect(model.requests).toHaveLength(0);
    const [doc] = await handoffDocs(daemon.root);
    expect(await fs.readFile(path.join(daemon.root, doc!), 'utf8')).toContain(REQUEST);
    expect(seen.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'claude-code', executor: 'offline' });
  }, 120_000);

  test('X3 the agent does not write its own document (self): the daemon falls back to summary, and the handoff records the self downgrade', async () => {
    const summary = `# Handoff\n\n${SECTIONS.map((heading) => `## ${heading}\n\nFrom the summary model after self: \`src/parse.ts\` is fixed; keep the tests green.\n`).join('\n')}`;
    unhandle = model.handle(() => reply().text(summary).usage({ prompt_tokens: 50, completion_tokens: 50 }));
    const { daemon, transcript, seen } = await setup();
    expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
    await cross(daemon.root, transcript);
    await waitFor(
      async () => (await daemon.status()).sessions.some((session) => session.agent === 'claude-code' && session.promptTokens === 142_000),
      { timeoutMs: 20_000, message: 'the crossing read' },
    );
    // Claude stops: the hook asks it to write the document (self)…
    const asked = await runHook(daemon, 'Stop', {
      transcript_path: transcript,
      cwd: daemon.root,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    });
    // Asked as Claude Code takes feedback that is not an error: the turn goes on.
    expect(JSON.parse(asked.stdout)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'Stop', additionalContext: expect.stringContaining('[ai-zen handoff]') },
    });
    expect(model.requests).toHaveLength(0);
    // …and it stops again without writing one.
    await runHook(daemon, 'Stop', { transcript_path: transcript, cwd: daemon.root, hook_event_name: 'Stop', stop_hook_active: true });
    await committed(daemon, seen);
    expect(model.requests).toHaveLength(1);
    expect(seen.find((event) => event.name === 'handoff.downgraded')?.payload).toMatchObject({ from: 'self', to: 'summary' });
    expect(seen.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'claude-code', executor: 'summary' });
    const { handoffs } = await daemon.status();
    expect(handoffs.at(-1)).toMatchObject({
      executor: 'summary',
      state: 'committed',
      downgrades: [{ from: 'self', reason: expect.any(String) }],
    });
  }, 120_000);
});

// The lean entry the stable shim runs for `hook` (dist/cli/ai-zen-hook.cjs): the path every agent turn takes.
const HOOK_ENTRY = path.join(path.dirname(DAEMON_BIN), 'ai-zen-hook.cjs');

function runHook(daemon: DaemonRepo, event: string, input: object): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'claude', event], {
      cwd: daemon.root,
      env: { ...process.env, ...daemon.env },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify(input));
  });
}
