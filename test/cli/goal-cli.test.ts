// S1 from the shell: `ai-zen handoff --goal "…"` and `ai-zen migrate --goal "…"`, the built CLI
// in real processes, a real temp git repo, the fake model server.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionLine } from '../../src/session/format.js';
import { parseSessionText } from '../../src/session/store.js';
import { reply } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';
import { isSummaryCall, goodDocument } from '../handoff/harness.js';

const KEY = 'sk-test-goal';

describe('ai-zen handoff / migrate --goal (S1)', { timeout: 60_000 }, () => {
  const each = freshRepoAndModel();

  const env = () => ({ AI_ZEN_HOME: each.repo.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL });
  const cli = (args: string[]) => runCli(args, { cwd: each.repo.root, env: env() });
  const lines = async (id: string): Promise<SessionLine[]> =>
    parseSessionText(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'sessions', `${id}.jsonl`), 'utf8')).lines.map(
      (entry) => entry.line,
    );
  const latest = async () =>
    (JSON.parse(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'latest-session.json'), 'utf8')) as { id: string }).id;

  it('S1 ai-zen handoff --goal: the summary call is asked to write towards the goal; the handoff line records it', async () => {
    each.fake.enqueue(reply().text('Read the code.'));
    expect((await cli(['-p', 'read the code'])).code).toBe(0);
    const id = await latest();
    each.fake.handle((request) => (isSummaryCall(request) ? reply().text(goodDocument('towards streams')) : undefined));
    const result = await cli(['handoff', '--executor', 'summary', '--goal', 'Port the exporter to streams']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const request = each.fake.requests.find(isSummaryCall)!;
    expect(request.lastUserText).toContain('The successor\'s next goal, in the user\'s words: "Port the exporter to streams"');
    expect((await lines(id)).at(-1)).toMatchObject({ type: 'handoff', executor: 'summary', goal: 'Port the exporter to streams' });
  });

  it('S1 ai-zen migrate --goal: the offline document states the goal under 🎯; without --goal nothing changes; a goal too long is one line, exit 2', async () => {
    each.fake.enqueue(reply().text('Looked around.'));
    expect((await cli(['-p', 'look around'])).code).toBe(0);
    const first = await latest();
    const migrated = await cli(['migrate', '--yes', '--executor', 'offline', '--goal', 'Add the --dry-run flag']);
    expect(migrated.code).toBe(0);
    const doc = await fs.readFile(path.join(each.repo.root, migrated.stdout.trim()), 'utf8');
    expect(doc).toContain('> Add the --dry-run flag');
    expect((await lines(first)).find((line) => line.type === 'handoff')).toMatchObject({ mode: 'migrate', goal: 'Add the --dry-run flag' });

    const plain = await cli(['handoff', '--executor', 'offline']);
    expect(plain.code).toBe(0);
    expect(await fs.readFile(path.join(each.repo.root, plain.stdout.trim()), 'utf8')).not.toContain('The next goal');
    expect((await lines(await latest())).at(-1)).not.toHaveProperty('goal');

    const long = await cli(['handoff', '--goal', 'x'.repeat(2001)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toBe('ai-zen: the goal is 2001 characters long; keep it under 2000 (the document holds the details)\n');
  });
});
