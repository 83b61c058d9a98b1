// `ai-zen handoff`, `ai-zen migrate` and auto-migration in print mode, as a user runs them: the
// built CLI in real processes, a real temp git repo, the fake model server.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionLine } from '../../src/session/format.js';
import { MIGRATION_STAGES } from '../../src/session/pause-hook.js';
import { parseSessionText } from '../../src/session/store.js';
import { reply } from '../support/fake-openai.js';
import { CLI_PATH } from '../support/run-cli.js';
import { runCli } from '../support/run-cli-in-process.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';
import { waitFor } from '../support/wait-for.js';
import { goodDocument, selfModel } from '../handoff/harness.js';

const KEY = 'sk-test-handoff';

describe('ai-zen handoff / migrate', () => {
  const each = freshRepoAndModel();

  const env = (extra: Record<string, string> = {}) => ({
    AI_ZEN_HOME: each.repo.home,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: each.fake.baseURL,
    ...extra,
  });
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { cwd: each.repo.root, env: env(extra) });
  const aiZen = (...parts: string[]) => path.join(each.repo.root, '.ai-zen', ...parts);
  const latest = async () =>
    JSON.parse(await fs.readFile(aiZen('latest-session.json'), 'utf8')) as { id: string; previousId: string | null };
  const sessionText = (id: string) => fs.readFile(aiZen('sessions', `${id}.jsonl`), 'utf8');
  const lines = async (id: string): Promise<SessionLine[]> => parseSessionText(await sessionText(id)).lines.map((entry) => entry.line);

  /** One real turn through `ai-zen -p`, so there is a session to hand off. */
  async function startSession(prompt = 'Create hello.txt'): Promise<string> {
    each.fake.enqueue(reply().tool('write', { path: 'hello.txt', content: 'hello\n' }), reply().text('Created hello.txt.'));
    const result = await cli(['-p', prompt]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return (await latest()).id;
  }

  it('R1 handoff writes the document, shows its path on stdout alone, and the session goes on', async () => {
    const id = await startSession();
    const result = await cli(['handoff', '--executor', 'offline']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\.ai-zen\/handoffs\/\d{8}-\d{6}-[\w-]{8}\.md\n$/);
    const docPath = result.stdout.trim();
    expect(path.basename(docPath)).toContain(id.slice(0, 8));
    const text = await fs.readFile(path.join(each.repo.root, docPath), 'utf8');
    expect(text).toContain('> Create hello.txt');
    expect(text).toContain('`hello.txt` — write');
    expect((await latest()).id).toBe(id);
    expect((await lines(id)).at(-1)).toMatchObject({ type: 'handoff', executor: 'offline', mode: 'handoff', path: docPath });
  });

  it('R28–R30 --verbose shows what the handoff cost', async () => {
    await startSession();
    each.fake.handle(
      selfModel((docPath) =>
        reply().tool('write', { path: docPath, content: goodDocument() }).usage({ prompt_tokens: 1234, completion_tokens: 321 }),
      ),
    );
    const result = await cli(['handoff', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cost: executor self · 2 requests · \d+ prompt \+ \d+ completion tokens/);
    const prompt = Number(/(\d+) prompt/.exec(result.stderr)![1]);
    expect(prompt).toBeGreaterThanOrEqual(1234);
  });

  it('R11 a downgrade is announced in one line on stderr', async () => {
    await startSession();
    const result = await cli(['handoff', '--executor', 'summary'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^ai-zen: summary handoff failed \(.+\); falling back to offline\n$/);
    expect(result.stdout).toMatch(/^\.ai-zen\/handoffs\/.+\.md\n$/);
  });

  it('R18 without a terminal, migrate needs --yes: one line and exit 2, nothing changed', async () => {
    const id = await startSession();
    const before = await sessionText(id);
    const result = await cli(['migrate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('ai-zen: migrate needs --yes when not run in a terminal (it clears the conversation history)\n');
    expect(await sessionText(id)).toBe(before);
    await expect(fs.readdir(aiZen('handoffs'))).rejects.toThrow();
  });

  it('R2 migrate --yes continues in a new session that --continue picks up, starting from the path alone', async () => {
    const oldId = await startSession();
    each.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    const result = await cli(['migrate', '--yes']);
    expect(result.code).toBe(0);
    const docPath = result.stdout.trim();
    const pointer = await latest();
    expect(pointer).toEqual({ id: expect.not.stringMatching(oldId), previousId: oldId });
    expect(result.stderr).toContain(`migrated to session ${pointer.id}`);
    expect((await lines(oldId)).at(-1)).toMatchObject({ type: 'migrated', newId: pointer.id, path: docPath });

    each.fake.enqueue(reply().text('Picking up from the document.'));
    const next = await cli(['--continue', '-p', 'carry on']);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe('Picking up from the document.\n');
    const request = each.fake.requests.at(-1)!;
    expect(request.messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(request.messages[1].content).toBe(docPath);
    expect((await lines(pointer.id)).some((line) => line.type === 'message' && line.message.content === 'carry on')).toBe(true);
  });

  it('R19 R20 ai-zen -p whose reply goes past the window migrates by itself and prints only the answer', async () => {
    await fs.mkdir(aiZen(), { recursive: true });
    await fs.writeFile(aiZen('config.json'), JSON.stringify({ maxContextTokens: 4000 }));
    const first = await startSession();
    each.fake.handle(selfModel((docPath) => reply().tool('write', { path: docPath, content: goodDocument() })));
    each.fake.enqueue(reply().text('Here is the answer.').usage({ prompt_tokens: 4001, completion_tokens: 10 }));
    const result = await cli(['--continue', '-p', 'one more thing']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Here is the answer.\n');

    const pointer = await latest();
    expect(pointer.previousId).toBe(first);
    const old = await lines(first);
    const handoff = old.find((line) => line.type === 'handoff');
    expect(handoff).toMatchObject({ executor: 'self', mode: 'migrate' });
    expect(old.at(-1)).toMatchObject({ type: 'migrated', newId: pointer.id });
    expect((await fs.stat(path.join(each.repo.root, (handoff as { path: string }).path))).size).toBeGreaterThanOrEqual(400);
  });

  it('R19 a reply under the window does not migrate', async () => {
    const first = await startSession();
    each.fake.enqueue(reply().text('Small answer.').usage({ prompt_tokens: 10, completion_tokens: 2 }));
    const result = await cli(['--continue', '-p', 'tiny']);
    expect(result.stdout).toBe('Small answer.\n');
    expect((await latest()).id).toBe(first);
    await expect(fs.readdir(aiZen('handoffs'))).rejects.toThrow();
  });

  describe('R26 kill -9 at each stage of the pipeline', () => {
    for (const stage of MIGRATION_STAGES) {
      it(`R26 killed at ${stage}: the old session is whole, the user can carry on or retry`, async () => {
        const oldId = await startSession();
        const before = await sessionText(oldId);
        const pauseFile = path.join(each.repo.home, 'paused');
        const child = spawn(process.execPath, [CLI_PATH, 'migrate', '--yes', '--executor', 'offline'], {
          cwd: each.repo.root,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: each.repo.home,
            ...env({ AI_ZEN_TEST_PAUSE_AT: stage, AI_ZEN_TEST_PAUSE_FILE: pauseFile }),
          },
          stdio: 'ignore',
        });
        const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
        await waitFor(() => fs.readFile(pauseFile, 'utf8').then((text) => text === stage), { message: `pause at ${stage}` });
        child.kill('SIGKILL');
        expect(await exited).toBe('SIGKILL');

        // Everything the old session held is still there, byte for byte, at the start of its file.
        const after = await sessionText(oldId);
        expect(after.startsWith(before)).toBe(true);
        const added = parseSessionText(after.slice(before.length));
        expect(added.skipped).toEqual([]);

        // Carry on: --continue lands in the old session or, once the migration was committed, the new one.
        each.fake.enqueue(reply().text('still here'));
        const next = await cli(['--continue', '-p', 'are you there?']);
        expect(next.stderr).toBe('');
        expect(next.stdout).toBe('still here\n');
        const conversation = each.fake.requests.at(-1)!.messages.map((message) => message.content);
        const migrated = (await lines(oldId)).at(-1)?.type === 'migrated';
        if (migrated) expect(conversation[1]).toMatch(/^\.ai-zen\/handoffs\//);
        else expect(conversation).toContain('Create hello.txt');

        // Retry: a migration runs to the end.
        const retry = await cli(['migrate', '--yes', '--executor', 'offline']);
        expect(retry.stderr).toMatch(/^ai-zen: migrated to session /);
        expect(retry.code).toBe(0);
      }, 90_000); // four CLI processes and a kill: under a loaded CI machine 30 s was seen to run out
    }
  });
});
