// `ai-zen-daemon continue <session> --in ai-zen` and `ai-zen migrate --undo`, the built
// CLIs spawned as real processes in a real temp git repo, with the fake model server.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import type { SessionLine } from '../../src/session/format.js';
import { contentText, reply } from '../support/fake-openai.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';
import { CLI_PATH, runCli as runScript } from '../support/run-cli.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { shortId } from '../../src/short-id.js';

const KEY = 'sk-test-continue';

describe('continue elsewhere and undo (ai-zen sessions)', { timeout: 180_000 }, () => {
  const each = freshRepoAndModel();
  const env = () => ({ AI_ZEN_HOME: each.repo.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL, TZ: 'UTC' });
  const cli = (args: string[]) => runCli(args, { cwd: each.repo.root, env: env(), timeoutMs: 60_000 });
  const daemonCli = (args: string[]) => runCli(args, { cwd: each.repo.root, env: env(), timeoutMs: 60_000, bin: DAEMON_BIN });
  // `continue` hands its own terminal (stdin, stdout) to the client it starts: only a process has one to hand.
  const daemonScript = (args: string[]) => runScript(args, { cwd: each.repo.root, env: env(), timeoutMs: 60_000, bin: DAEMON_BIN });
  async function ok(result: Promise<{ code: number | null; stdout: string; stderr: string }>): Promise<string> {
    const done = await result;
    expect(done.code, done.stderr).toBe(0);
    return done.stdout;
  }
  const latest = async () =>
    (JSON.parse(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'latest-session.json'), 'utf8')) as { id: string }).id;
  const lines = async (id: string): Promise<SessionLine[]> =>
    (await fs.readFile(path.join(each.repo.root, '.ai-zen', 'sessions', `${id}.jsonl`), 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as SessionLine);
  const said = (all: SessionLine[]) =>
    all.flatMap((line) => (line.type === 'message' && line.definition !== true ? [contentText(line.message.content)] : []));

  it('continue --in ai-zen makes the successor as a migration does (its only history is the document path) and ai-zen carries on in it', async () => {
    each.fake.enqueue(reply().text('Noted: the exporter.'));
    await ok(cli(['-p', 'work on the exporter']));
    const first = await latest();
    const doc = (await ok(cli(['handoff', '--executor', 'offline']))).trim();

    const printed = (await ok(daemonCli(['continue', shortId(first), '--in', 'ai-zen', '--print']))).trim();
    const successor = await latest();
    expect(successor).not.toBe(first);
    expect(printed).toBe(`ai-zen --resume ${successor}`);
    expect(said(await lines(successor))).toEqual([doc]);
    const header = (await lines(successor))[0]!;
    expect(header).toMatchObject({ type: 'session', previousId: first });
    expect((await lines(first)).at(-1)).toMatchObject({ type: 'migrated', newId: successor, path: doc });
    // sessions shows the two linked, as any migration.
    expect(await ok(cli(['sessions']))).toMatch(new RegExp(`↓ migrated .* to ${successor}`));

    // Without --print: our ai-zen runs on this terminal (here, its print mode through the client args).
    // Nothing queued: it stops before asking the model (a reply queued here answered the next turn instead).
    const asked = each.fake.requests.length;
    const ran = await daemonCli(['continue', successor, '--in', 'ai-zen', '--', '-p', 'go on']);
    // The successor has no document of its own yet: said so, with the command that writes one.
    expect(ran.code).not.toBe(0);
    expect(each.fake.requests.length).toBe(asked);
    expect(ran.stderr).toMatch(/has no handoff document yet: write one with ai-zen-daemon handoff \S+/);
    expect(ran.stderr).not.toMatch(/\n\s+at /);

    each.fake.enqueue(reply().text('Second turn.'));
    await ok(cli(['--continue', '-p', 'more']));
    const request = each.fake.requests.at(-1)!;
    const users = request.messages
      .filter((message: { role: string }) => message.role === 'user')
      .map((message: { content: unknown }) => contentText(message.content));
    expect(users[0]).toBe(doc);
  });

  it('continue --in ai-zen hands the terminal to ai-zen, whose model gets the document path as the first user message', async () => {
    each.fake.enqueue(reply().text('Noted.'));
    await ok(cli(['-p', 'work on the importer']));
    const first = await latest();
    const doc = (await ok(cli(['handoff', '--executor', 'offline']))).trim();
    each.fake.enqueue(reply().text('Reading the document.'));
    const ran = await daemonScript(['continue', first, '--in', 'ai-zen', '--', '-p', 'go on']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Reading the document.');
    const request = each.fake.requests.at(-1)!;
    const users = request.messages
      .filter((message: { role: string }) => message.role === 'user')
      .map((message: { content: unknown }) => contentText(message.content));
    expect(users).toEqual([doc, 'go on']);
  });

  it('continue names an unknown session, or a session without a document, in one line and exits non-zero', async () => {
    const unknown = await daemonCli(['continue', 'deadbeef', '--in', 'claude', '--print']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/no session "deadbeef" in /);

    each.fake.enqueue(reply().text('Hi.'));
    await ok(cli(['-p', 'hello']));
    const id = await latest();
    const none = await daemonCli(['continue', id, '--in', 'codex', '--print']);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.stderr).toContain(`has no handoff document yet: write one with ai-zen-daemon handoff ${shortId(id)}`);

    const missing = await daemonCli(['continue', id]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--in/);
  });

  it('continue --in claude --print starts from the document: its path first, then its text (up to 16 KB)', async () => {
    each.fake.enqueue(reply().text('Hi.'));
    await ok(cli(['-p', 'hello']));
    const id = await latest();
    const doc = (await ok(cli(['handoff', '--executor', 'offline']))).trim();
    const printed = await ok(daemonCli(['continue', id, '--in', 'claude', '--print']));
    const [client, prompt] = parse(printed.trim()) as string[];
    expect(client).toBe('claude');
    expect(prompt!.startsWith(`Read the handoff document ${doc} (the previous session's record)`)).toBe(true);
    const text = await fs.readFile(path.join(each.repo.root, doc), 'utf8');
    expect(printed).toContain(text.split('\n')[0]!);
    // A document over 16 KB is named only.
    await fs.appendFile(path.join(each.repo.root, doc), `\n${'x'.repeat(17 * 1024)}\n`);
    const named = await ok(daemonCli(['continue', id, '--in', 'codex', '--print']));
    expect(parse(named.trim())).toEqual([
      'codex',
      `Read the handoff document ${doc} (the previous session's record) and continue the work from its breakpoint.`,
    ]);
  });

  it('migrate --undo reopens the migrated session with its whole history; ai-zen continues it; migrating again works', async () => {
    each.fake.enqueue(reply().text('One.'));
    await ok(cli(['-p', 'first question']));
    each.fake.enqueue(reply().text('Two.'));
    await ok(cli(['--continue', '-p', 'second question']));
    const old = await latest();
    await ok(cli(['migrate', '--yes', '--executor', 'offline']));
    const successor = await latest();
    expect(successor).not.toBe(old);

    const undone = await cli(['migrate', '--undo']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout.trim()).toBe(old);
    expect(undone.stderr).toContain(`reopened session ${old}`);
    expect(await latest()).toBe(old);
    // The successor is kept.
    expect(said(await lines(successor))).toHaveLength(1);

    each.fake.enqueue(reply().text('Three.'));
    await ok(cli(['--continue', '-p', 'third question']));
    const request = each.fake.requests.at(-1)!;
    const users = request.messages
      .filter((message: { role: string }) => message.role === 'user')
      .map((message: { content: unknown }) => contentText(message.content));
    expect(users).toEqual(['first question', 'second question', 'third question']);
    expect(said(await lines(old))).toContain('third question');

    const again = (await ok(cli(['migrate', '--yes', '--executor', 'offline']))).trim();
    const next = await latest();
    expect(next).not.toBe(old);
    expect(next).not.toBe(successor);
    expect(said(await lines(next))).toEqual([again]);
    expect((await lines(old)).at(-1)).toMatchObject({ type: 'migrated', newId: next });
    // sessions: the old chain goes on in the new successor; the first successor stands alone.
    const sessions = await ok(cli(['sessions']));
    expect(sessions).toMatch(new RegExp(`↓ migrated .* to ${next}`));
    expect(sessions).not.toMatch(new RegExp(`↓ migrated .* to ${successor}`));
  });

  it('undo twice, or of a session never migrated, says so in one line and exits non-zero', async () => {
    each.fake.enqueue(reply().text('One.'));
    await ok(cli(['-p', 'first question']));
    const old = await latest();
    const never = await cli(['migrate', '--undo', old]);
    expect(never.code).toBe(1);
    expect(never.stderr.trim().split('\n')).toEqual([
      `ai-zen: session ${old} was never migrated (nor made by a migration that is still in effect): nothing to undo`,
    ]);

    await ok(cli(['migrate', '--yes', '--executor', 'offline']));
    const successor = await latest();
    await ok(cli(['migrate', '--undo', shortId(successor)]));
    expect(await latest()).toBe(old);
    const twice = await cli(['migrate', '--undo']);
    expect(twice.code).toBe(1);
    expect(twice.stderr.trim().split('\n')).toEqual([`ai-zen: the latest session ${old} was not made by a migration: nothing to undo`]);
    const twiceNamed = await cli(['migrate', '--undo', successor]);
    expect(twiceNamed.code).toBe(1);
    expect(twiceNamed.stderr).toContain('nothing to undo');
    const unknown = await cli(['migrate', '--undo', 'feedface']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('no session "feedface"');
  });

  it('a kill -9 in the middle of an undo (pointer switched, no reopened line yet) leaves the migration in effect; undo again finishes it with the history whole', async () => {
    each.fake.enqueue(reply().text('One.'));
    await ok(cli(['-p', 'first question']));
    const old = await latest();
    const doc = (await ok(cli(['migrate', '--yes', '--executor', 'offline']))).trim();
    const successor = await latest();

    const pausedAt = path.join(each.repo.home, 'paused-at');
    const child = spawn(process.execPath, [CLI_PATH, 'migrate', '--undo'], {
      cwd: each.repo.root,
      env: { ...process.env, ...env(), AI_ZEN_TEST_PAUSE_AT: 'undo-after-pointer', AI_ZEN_TEST_PAUSE_FILE: pausedAt },
      stdio: 'ignore',
    });
    const gone = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitFor(() => fs.readFile(pausedAt, 'utf8').catch(() => null), {
        timeoutMs: 30_000,
        message: 'the undo paused after the pointer',
      });
    } finally {
      child.kill('SIGKILL');
      await gone;
    }
    // The pointer names the old session, which still ends with its migrated line: --continue follows it.
    expect(await latest()).toBe(old);
    expect((await lines(old)).at(-1)).toMatchObject({ type: 'migrated', newId: successor });
    each.fake.enqueue(reply().text('In the successor.'));
    await ok(cli(['--continue', '-p', 'where am I']));
    const users = (request: { messages: { role: string; content: unknown }[] }) =>
      request.messages.filter((message) => message.role === 'user').map((message) => contentText(message.content));
    expect(users(each.fake.requests.at(-1)!)).toEqual([doc, 'where am I']);

    await ok(cli(['migrate', '--undo']));
    each.fake.enqueue(reply().text('Back.'));
    await ok(cli(['--continue', '-p', 'and now']));
    expect(users(each.fake.requests.at(-1)!)).toEqual(['first question', 'and now']);
  });
});
