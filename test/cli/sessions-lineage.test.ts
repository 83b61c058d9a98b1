// S6: `ai-zen sessions [--json]` against chains built by real migrations (the built CLI, a real temp
// git repo, the fake model server).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LineageChain } from '../../src/session/lineage.js';
import { reply } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { freshRepoAndModel } from '../support/repo-and-model.js';

const KEY = 'sk-test-lineage';

describe('S6 ai-zen sessions', { timeout: 120_000 }, () => {
  const each = freshRepoAndModel();

  const cli = (args: string[]) =>
    runCli(args, {
      cwd: each.repo.root,
      env: { AI_ZEN_HOME: each.repo.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: each.fake.baseURL, TZ: 'UTC' },
      timeoutMs: 40_000,
    });
  const latest = async () =>
    (JSON.parse(await fs.readFile(path.join(each.repo.root, '.ai-zen', 'latest-session.json'), 'utf8')) as { id: string }).id;
  async function ok(args: string[]): Promise<string> {
    const result = await cli(args);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  }

  it('S6 lists each chain: sessions in order, their handoff documents, the session each migrated to, when and by which executor; --json too', async () => {
    expect(await ok(['sessions'])).toBe('No sessions in this project yet.\n');
    each.fake.enqueue(reply().text('One.'));
    await ok(['-p', 'first']);
    const first = await latest();
    const firstHandoff = (await ok(['handoff', '--executor', 'offline'])).trim();
    const firstMigration = (await ok(['migrate', '--yes', '--executor', 'offline', '--goal', 'Finish the exporter'])).trim();
    const second = await latest();
    each.fake.enqueue(reply().text('Two.'));
    await ok(['--continue', '-p', 'second']);
    const secondMigration = (await ok(['migrate', '--yes', '--executor', 'offline'])).trim();
    const third = await latest();
    // A separate conversation: a chain of its own.
    each.fake.enqueue(reply().text('Alone.'));
    await ok(['-p', 'unrelated']);
    const alone = await latest();

    const text = await ok(['sessions']);
    const time = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}`;
    expect(text).toMatch(
      new RegExp(
        [
          String.raw`^Chain 1 · 3 sessions`,
          String.raw`  ${first}  ${time}  gpt-4o  \d+ messages`,
          String.raw`    handoff doc    ${firstHandoff}  \(offline, ${time}\)`,
          String.raw`    migration doc  ${firstMigration}  \(offline, ${time}\)  goal: "Finish the exporter"`,
          String.raw`    ↓ migrated ${time} by offline to ${second}`,
          String.raw`  ${second}  ${time}  gpt-4o  \d+ messages`,
          String.raw`    migration doc  ${secondMigration}  \(offline, ${time}\)`,
          String.raw`    ↓ migrated ${time} by offline to ${third}`,
          String.raw`  ${third}  ${time}  gpt-4o  \d+ messages`,
          '',
          String.raw`Chain 2 · 1 session`,
          String.raw`  ${alone}  ${time}  gpt-4o  \d+ messages  ← latest \(ai-zen --continue\)`,
          '$',
        ].join('\n'),
      ),
    );

    const json = JSON.parse(await ok(['sessions', '--json'])) as { chains: LineageChain[] };
    expect(json.chains.map((chain) => chain.sessions.map((session) => session.id))).toEqual([[first, second, third], [alone]]);
    const [head] = json.chains[0]!.sessions;
    expect(head).toMatchObject({
      id: first,
      previousId: null,
      latest: false,
      handoffs: [
        { path: firstHandoff, mode: 'handoff', executor: 'offline', goal: null },
        { path: firstMigration, mode: 'migrate', executor: 'offline', goal: 'Finish the exporter' },
      ],
      migratedTo: { id: second, path: firstMigration, executor: 'offline' },
    });
    expect(json.chains[0]!.sessions[2]).toMatchObject({ id: third, previousId: second, migratedTo: null });
    expect(json.chains[1]!.sessions[0]).toMatchObject({ id: alone, latest: true });
  });
});
