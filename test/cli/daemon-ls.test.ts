// `ai-zen-daemon ls` and `stop --all`, as a user runs them: two repos, two real
// daemons started by the CLI, listed and stopped from a third folder.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('ai-zen-daemon ls and stop --all', { timeout: 120_000 }, () => {
  const repos: TempRepo[] = [];
  let env: Record<string, string> = {};
  afterEach(async () => {
    for (const repo of repos) await runCli(['stop'], { cwd: repo.root, env, bin: DAEMON_BIN }).catch(() => {});
    for (const repo of repos.splice(0)) await repo.cleanup();
  });

  it('ls lists every running daemon of the user (repo, pid, uptime, sessions, last handoff) and stop --all stops them all', async () => {
    repos.push(await makeTempRepo(), await makeTempRepo());
    const home = repos[0]!.home;
    env = { AI_ZEN_HOME: home, GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
    const daemon = (args: string[], cwd: string) => runCli(args, { cwd, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
    const pids: number[] = [];
    for (const repo of repos) {
      const started = await daemon(['start'], repo.root);
      expect(started.code, started.stderr).toBe(0);
      pids.push(Number(/pid\s+(\d+)/.exec(started.stdout)![1]));
    }
    const elsewhere = path.dirname(repos[0]!.root);
    const listed = await daemon(['ls', '--json'], elsewhere);
    expect(listed.code, listed.stderr).toBe(0);
    const { daemons } = JSON.parse(listed.stdout) as { daemons: { repo: string; pid: number; sessions: number; lastHandoff: unknown }[] };
    expect(daemons.map((entry) => [entry.repo, entry.pid]).sort()).toEqual(repos.map((repo, index) => [repo.root, pids[index]]).sort());
    expect(daemons.every((entry) => entry.sessions === 0 && entry.lastHandoff === null)).toBe(true);
    const table = await daemon(['ls'], elsewhere);
    expect(table.stdout.split('\n')[0]).toMatch(/^REPO\s+PID\s+UPTIME\s+SESSIONS\s+LAST HANDOFF$/);
    for (const repo of repos) expect(table.stdout).toContain(repo.root);

    const stopped = await daemon(['stop', '--all'], elsewhere);
    expect(stopped.code, stopped.stderr).toBe(0);
    for (const [index, repo] of repos.entries()) expect(stopped.stdout).toContain(`stopped ${repo.root} (pid ${pids[index]})`);
    expect((await daemon(['ls'], elsewhere)).stdout).toBe('no ai-zen daemon is running\n');
    await fs.access(repos[0]!.root);
  });

  it('enable: an agent’s SessionStart hook in an enabled repo brings its daemon up, detached, without waiting for it, and ls lists it; disable undoes it', async () => {
    repos.push(await makeTempRepo());
    const repo = repos[0]!;
    env = { AI_ZEN_HOME: repo.home, GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
    const daemon = (args: string[], input?: string) =>
      runCli(args, { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });
    const input = JSON.stringify({ transcript_path: path.join(repo.root, 'x.jsonl'), cwd: repo.root, source: 'startup' });
    const enabled = await daemon(['enable']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain(`enabled for ${repo.root}`);
    const hook = await daemon(['hook', 'claude', 'SessionStart'], input);
    expect(hook).toMatchObject({ code: 0, stdout: '' });
    const listed = await waitFor(
      async () => {
        const { daemons } = JSON.parse((await daemon(['ls', '--json'])).stdout) as { daemons: { repo: string }[] };
        return daemons.some((entry) => entry.repo === repo.root) ? daemons : null;
      },
      { timeoutMs: 30_000 },
    );
    expect(listed).toHaveLength(1);
    expect((await daemon(['stop'])).code).toBe(0);

    expect((await daemon(['disable'])).stdout).toContain(`disabled for ${repo.root}`);
    const after = await daemon(['hook', 'claude', 'SessionStart'], input);
    expect(JSON.parse(after.stdout).hookSpecificOutput.additionalContext).toContain('NOT protected');
  });
});
