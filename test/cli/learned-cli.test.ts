// `ai-zen-daemon learned` as a person runs it: what ai-zen learned of where each agent compacts, the
// point this repo goes by, and `--forget` to make it go by the model table again.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
});

test('learned lists the points this repo goes by, and --forget forgets them', async () => {
  repo = await makeTempRepo();
  const home = repo.home;
  const seen = (at: string, percent: number, repo: string) => ({ at, seenAt: at, preTokens: percent * 2_000, window: 200_000, repo });
  const root = await fs.realpath(repo.root);
  await fs.writeFile(
    path.join(home, 'compaction-points.json'),
    JSON.stringify({
      version: 2,
      agents: {
        'claude-code': { 'claude-sonnet-4-6': [seen('2026-12-04T10:00:00.000Z', 73, root)] },
        codex: { 'gpt-5.5': [seen('2026-12-04T10:00:00.000Z', 90, '/elsewhere')] },
      },
    }),
  );
  const env = { AI_ZEN_HOME: home };
  const listed = await runCli(['learned'], { cwd: repo.root, env, bin: DAEMON_BIN });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain('claude-code  claude-sonnet-4-6  compacts at 73%  (1 compaction in 1 repo)');
  expect(listed.stdout).toContain('codex  gpt-5.5  not this repo’s yet (the model table)');
  const forgot = await runCli(['learned', '--forget', '--agent', 'claude-code'], { cwd: repo.root, env, bin: DAEMON_BIN });
  expect(forgot.stdout).toContain('forgot 1 compaction of claude-code');
  const json = await runCli(['learned', '--json'], { cwd: repo.root, env, bin: DAEMON_BIN });
  const rows = (JSON.parse(json.stdout) as { learned: { agent: string; forgottenAt: string | null }[] }).learned;
  expect(rows.map((row) => row.agent)).toEqual(['codex']);
});
