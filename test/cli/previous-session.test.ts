// S4: the `previous_session` tool in a migrated session, against a real three-session chain built
// by real migrations (`ai-zen -p`, `ai-zen migrate --yes`), the built CLI in real processes and the
// fake model server. The model's tool calls are scripted; what it reads back is the real tool's.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentText, reply, type RecordedRequest } from '../support/fake-openai.js';
import { CLI_PATH } from '../support/run-cli.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';

const KEY = 'sk-test-previous';
const BIG = `${'lorem ipsum dolor sit amet '.repeat(600)}THE-END`;
/** 100 KB on one line: a message that once made the search slow. */
const HUGE = 'lorem ipsum dolor sit amet '.repeat(4000).slice(0, 100_000);
/** Never matches HUGE, so RE2 reads all of it, ~1,000 instructions a character: ~30 s a message here. */
const SLOW = '[^\\n]{999}!';
/** The pattern: 49 × `[^\n]{999}`, ~49,000 instructions once compiled. */
const PATHOLOGICAL = '[^\\n]{999}'.repeat(49);

describe('S4 previous_session in a migrated session', { timeout: 120_000 }, () => {
  const each = freshRepoAndModel();

  const cli = (args: string[]) =>
    runCli(args, {
      cwd: each.repo.root,
      env: { AI_ZEN_HOME: each.repo.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL },
      timeoutMs: 40_000,
    });
  const sessionsDir = () => path.join(each.repo.root, '.ai-zen', 'sessions');
  const latest = async () =>
    (JSON.parse(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'latest-session.json'), 'utf8')) as { id: string }).id;
  async function ok(args: string[]): Promise<string> {
    const result = await cli(args);
    if (args[0] !== 'migrate') expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  }
  /** The tool result the model got back for its call `id`. */
  function toolResult(requests: readonly RecordedRequest[], id: string): string {
    for (const request of requests) {
      const found = request.messages.find(
        (message) => message.role === 'tool' && (message as { tool_call_id?: string }).tool_call_id === id,
      );
      if (found) return contentText(found.content);
    }
    throw new Error(`no result for tool call ${id}`);
  }
  async function fingerprint(): Promise<Record<string, string>> {
    const names = (await fs.readdir(sessionsDir())).sort();
    const entries = await Promise.all(
      names.map(
        async (name) =>
          [
            name,
            createHash('sha256')
              .update(await fs.readFile(path.join(sessionsDir(), name)))
              .digest('hex'),
          ] as const,
      ),
    );
    return Object.fromEntries(entries);
  }

  it('S4 search hits in the first session with its tool call and result; a long result is truncated with a note; read gives a message whole; nothing is written', async () => {
    // Session 1: a command whose output only this session saw, and a big file write.
    each.fake.enqueue(
      reply().tool('exec', { command: 'echo migration-token-zebra-42' }, 'call-exec'),
      // `(a+)+$` over this takes exponential time on a backtracking engine.
      reply().tool('write', { path: 'big.txt', content: `${BIG}\n${'a'.repeat(20_000)}!` }, 'call-big'),
      reply().text('Ran the probe and wrote big.txt.'),
    );
    await ok(['-p', 'run the probe and write big.txt']);
    const first = await latest();
    await ok(['migrate', '--yes', '--executor', 'offline']);
    const second = await latest();
    each.fake.enqueue(reply().text('Continuing in the second session.'));
    await ok(['--continue', '-p', 'keep going']);
    await ok(['migrate', '--yes', '--executor', 'offline']);
    const third = await latest();
    expect(new Set([first, second, third]).size).toBe(3);
    const before = await fingerprint();

    each.fake.enqueue(
      reply().tool('previous_session', { search: 'ZEBRA-42' }, 'call-search'),
      reply().tool('previous_session', { search: 'lorem|THE-END', regex: true }, 'call-regex'),
      reply().tool('previous_session', { read: 3, session: first.slice(0, 8) }, 'call-read'),
      reply().tool('previous_session', { search: '(a+)+$', regex: true }, 'call-redos'),
      reply().tool('previous_session', { read: 0, session: first, content: 'overwrite' }, 'call-write'),
      reply().tool('previous_session', { read: 0, session: 'ffffffffffff' }, 'call-stranger'),
      reply().text('Found it.'),
    );
    await ok(['--continue', '-p', 'what did the probe print?']);
    const requests = each.fake.requests.slice(-7);

    // The successor's system prompt says the tool is there, in one line.
    const system = contentText(requests[0]!.messages[0]!.content);
    expect(system).toMatch(/^Your tools: [^\n]*previous_session\./m);
    expect(system.split('\n').filter((line) => line.includes('previous_session') && !line.startsWith('Your tools:'))).toHaveLength(1);

    const search = toolResult(requests, 'call-search');
    expect(search).toMatch(new RegExp(`^1 matching message in 2 earlier sessions \\(${second.slice(0, 8)} ← ${first.slice(0, 8)}\\):`));
    expect(search).toContain(`--- session ${first.slice(0, 8)} · message 2 · assistant ---`);
    expect(search).toContain('→ exec({"command":"echo migration-token-zebra-42"})');
    expect(search).toContain('← exec result (message 3):\nmigration-token-zebra-42\n[exit code 0]');

    const regex = toolResult(requests, 'call-regex');
    expect(regex).toContain(`--- session ${first.slice(0, 8)} · message 4 · assistant ---`);
    expect(regex).toMatch(/\[… \d+ more characters; read it whole with \{"read": 4, "session": "[\w-]{8}"\}\]/);
    expect(regex.length).toBeLessThanOrEqual(12_500);

    const read = toolResult(requests, 'call-read');
    expect(read).toContain(`--- session ${first.slice(0, 8)} · message 3 · tool ---`);
    expect(read).toContain('migration-token-zebra-42');

    // A pattern that would backtrack for ages on a backtracking engine runs in linear time here.
    expect(toolResult(requests, 'call-redos')).toMatch(/^no message matches "\(a\+\)\+\$" in 2 earlier sessions/);
    // The tool takes nothing that could write, and no session outside its own chain.
    expect(toolResult(requests, 'call-write')).toMatch(/^error: invalid arguments for previous_session: .*content/);
    expect(toolResult(requests, 'call-stranger')).toMatch(/^error: session ffffffffffff is not one of this session's predecessors/);
    // Archived sessions are never written to.
    const after = await fingerprint();
    for (const id of [first, second]) expect(after[`${id}.jsonl`]).toBe(before[`${id}.jsonl`]);
  });

  it('S4 read of a long message is cut with a note saying how to read on; a session that did not start from a handoff has no predecessor', async () => {
    each.fake.enqueue(reply().tool('write', { path: 'big.txt', content: BIG }, 'call-big'), reply().text('Wrote it.'));
    await ok(['-p', 'write big.txt']);
    const first = await latest();
    each.fake.enqueue(reply().tool('previous_session', { search: 'anything' }, 'call-none'), reply().text('Nothing before.'));
    await ok(['--continue', '-p', 'anything before?']);
    expect(toolResult(each.fake.requests, 'call-none')).toBe('error: this session has no predecessor: it did not start from a handoff');

    await ok(['migrate', '--yes', '--executor', 'offline']);
    each.fake.enqueue(
      reply().tool('previous_session', { read: 2, session: first.slice(0, 8) }, 'call-long'),
      reply().tool('previous_session', { read: 2, session: first.slice(0, 8), offset: 12_000 }, 'call-more'),
      reply().text('Read it.'),
    );
    await ok(['--continue', '-p', 'read the big write']);
    const long = toolResult(each.fake.requests, 'call-long');
    expect(long.length).toBeLessThan(12_400);
    expect(long).toMatch(/\n\[truncated: \d+ more characters; read on with \{"read": 2, "session": "[\w-]{8}", "offset": 12000\}\]$/);
    expect(toolResult(each.fake.requests, 'call-more')).toContain('THE-END');
  });

  /** A first session with big writes, migrated: the chain the searches below run over. */
  async function bigPredecessor(writes: number): Promise<void> {
    each.fake.enqueue(
      ...Array.from({ length: writes }, (_, n) => reply().tool('write', { path: `big-${n}.txt`, content: HUGE }, `call-big-${n}`)),
      reply().text('Wrote the big files.'),
    );
    await ok(['-p', 'write the big files']);
    await ok(['migrate', '--yes', '--executor', 'offline']);
  }

  it("a search cannot hold the agent: a slow pattern over 100 KB messages stops at its time budget with partial results and says so; the issue's 49 × [^\\n]{999} is refused as too large at once", async () => {
    await bigPredecessor(3);
    each.fake.enqueue(
      reply().tool('previous_session', { search: SLOW, regex: true }, 'call-slow'),
      reply().tool('previous_session', { search: PATHOLOGICAL, regex: true }, 'call-huge'),
      reply().tool('previous_session', { search: 'write the big files' }, 'call-plain'),
      reply().text('Searched.'),
    );
    // The CLI's own deadline (40 s) is the hang guard: unbounded, the first search alone takes minutes.
    await ok(['--continue', '-p', 'search the earlier session']);
    const slow = toolResult(each.fake.requests, 'call-slow');
    expect(slow).toMatch(/^no message matches .* in 1 earlier session/);
    // Stopped part-way, however fast the machine: fewer messages searched than there are.
    const stopped = /\[search stopped after \d+ ms \(its time budget\): searched (\d+) of (\d+) messages; partial results/.exec(slow);
    expect(stopped, slow).not.toBeNull();
    expect(Number(stopped![1])).toBeLessThan(Number(stopped![2]));
    expect(toolResult(each.fake.requests, 'call-huge')).toMatch(
      /^error: the regular expression is too large to search with \(\d{5} instructions once compiled, at most 2000\)/,
    );
    // Plain text is searched as before, whole.
    const plain = toolResult(each.fake.requests, 'call-plain');
    expect(plain).toMatch(/^1 matching message in 1 earlier session/);
    expect(plain).not.toContain('search stopped');
  });

  it('Ctrl-C (SIGINT to the real CLI) during a slow search ends it: the search stops as interrupted and the CLI exits, the session whole', async () => {
    await bigPredecessor(1);
    // One reply: Ctrl-C ends the turn during the tool, so the CLI never asks for the next one.
    each.fake.enqueue(reply().tool('previous_session', { search: SLOW, regex: true }, 'call-slow'));
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: each.repo.home, AI_ZEN_HOME: each.repo.home };
    Object.assign(env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL });
    const child = spawn(process.execPath, [CLI_PATH, '--continue', '-p', 'search the earlier session'], {
      cwd: each.repo.root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const current = await latest();
    const sessionFile = path.join(sessionsDir(), `${current}.jsonl`);
    // The call is on the record just before the tool runs.
    await waitFor(async () => (await fs.readFile(sessionFile, 'utf8')).includes('"call-slow"') || child.exitCode !== null, {
      timeoutMs: 30_000,
      message: 'the previous_session call to start',
    });
    child.kill('SIGINT');
    // Hang guard, not a speed target: unbounded, the search runs ~30 s before Ctrl-C is even read.
    const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code).not.toBe('hung');
    expect(code).not.toBe(0);
    expect(stderr).not.toMatch(/\n\s+at /);
    const lines = (await fs.readFile(sessionFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string; tool_call_id?: string; content?: string } });
    const result = lines.find((line) => line.message?.role === 'tool' && line.message.tool_call_id === 'call-slow')?.message?.content ?? '';
    expect(result).toMatch(/\[search stopped after \d+ ms \(interrupted\)|^not run: the turn was aborted/);
  });
});
