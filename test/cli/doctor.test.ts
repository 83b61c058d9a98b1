// `ai-zen-daemon doctor`, as a user runs it: each problem planted for real in a temp
// HOME / AI_ZEN_HOME / CODEX_HOME — a hook to a deleted checkout, a daemon killed with -9, an
// untrusted repo config, malformed JSON, an old `node` first on the PATH, a stale shim, an edited
// login unit — shows its line and its fix; running the fix makes doctor say the repo is healthy.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonLockName, isLockHeld } from '../../src/lock/os-lock.js';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { processAlive } from '../support/process-alive.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

const run = promisify(execFile);

interface Finding {
  check: string;
  status: 'ok' | 'note' | 'problem';
  message: string;
  fix: string | null;
}

describe('ai-zen-daemon doctor', { timeout: 120_000 }, () => {
  const repos: TempRepo[] = [];
  let env: Record<string, string> = {};
  afterEach(async () => {
    for (const repo of repos) await runCli(['stop', '--all'], { cwd: repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 }).catch(() => {});
    for (const repo of repos.splice(0)) await repo.cleanup();
  });

  async function user(): Promise<TempRepo> {
    const repo = await makeTempRepo();
    repos.push(repo);
    const home = path.join(path.dirname(repo.root), 'user home');
    await fs.mkdir(home);
    env = {
      HOME: home,
      AI_ZEN_HOME: repo.home,
      CODEX_HOME: path.join(home, '.codex'),
      XDG_CONFIG_HOME: path.join(home, '.config'),
      GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
    };
    return repo;
  }
  const daemon = (repo: TempRepo, args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { cwd: repo.root, env: { ...env, ...extra }, bin: DAEMON_BIN, timeoutMs: 60_000 });
  async function doctor(repo: TempRepo, extra: Record<string, string> = {}) {
    const result = await daemon(repo, ['doctor', '--json'], extra);
    const report = JSON.parse(result.stdout) as { healthy: boolean; findings: Finding[] };
    return { ...result, ...report, problems: report.findings.filter((finding) => finding.status === 'problem') };
  }

  it('doctor: a healthy repo (enabled, hooks installed) says so and exits 0', async () => {
    const repo = await user();
    expect((await daemon(repo, ['enable'])).code).toBe(0);
    expect((await daemon(repo, ['install-hooks', 'claude'])).code).toBe(0);
    const text = await daemon(repo, ['doctor']);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toMatch(/healthy: nothing to fix\n$/);
    expect(text.stdout).toMatch(/^ok +shim /m);
    expect(text.stdout).toMatch(/^ok +hooks +\.claude\/settings\.local\.json: ai-zen's 4 hooks run ai-zen-daemon$/m);
    expect(text.stderr).toBe('');
    expect((await doctor(repo)).healthy).toBe(true);
  });

  it('doctor: stale hooks — one to a deleted checkout, one that embeds a checkout path instead of the shim — each with its fix, and install-hooks fixes them', async () => {
    const repo = await user();
    expect((await daemon(repo, ['install-hooks', 'claude'])).code).toBe(0);
    const settingsFile = path.join(repo.root, '.claude', 'settings.local.json');
    const gone = path.join(path.dirname(repo.root), 'old checkout', 'dist', 'cli', 'ai-zen-daemon.js');
    const settings = (await fs.readFile(settingsFile, 'utf8')).replace(
      /"[^"]*ai-zen-daemon hook claude Stop"/,
      JSON.stringify(`node '${gone}' hook claude Stop`),
    );
    await fs.writeFile(settingsFile, settings);
    await fs.mkdir(env.CODEX_HOME!, { recursive: true });
    const codexHooks = { hooks: { Stop: [{ hooks: [{ type: 'command', command: `node ${DAEMON_BIN} hook codex Stop`, timeout: 60 }] }] } };
    await fs.writeFile(path.join(env.CODEX_HOME!, 'hooks.json'), JSON.stringify(codexHooks));

    const found = await doctor(repo);
    expect(found.code).toBe(1);
    expect(found.stderr).toBe('ai-zen-daemon: doctor: 2 things to fix\n');
    expect(found.problems).toEqual([
      {
        check: 'hooks',
        status: 'problem',
        message: `.claude/settings.local.json: 1 stale ai-zen hook: runs ${gone}, which no longer exists`,
        fix: `ai-zen-daemon install-hooks claude (in ${repo.root})`,
      },
      {
        check: 'hooks',
        status: 'problem',
        message: `${path.join(env.CODEX_HOME!, 'hooks.json')}: 1 stale ai-zen hook: runs ${DAEMON_BIN} (a checkout of ai-zen) instead of the stable ${path.join(repo.home, 'bin', 'ai-zen-daemon')}: moving or re-cloning it breaks the hook`,
        fix: 'ai-zen-daemon install-hooks codex --trust',
      },
    ]);
    const text = await daemon(repo, ['doctor']);
    expect(text.stdout).toMatch(
      /^PROBLEM +hooks +\.claude\/settings\.local\.json: 1 stale ai-zen hook: .*\n +fix: ai-zen-daemon install-hooks claude/m,
    );

    expect((await daemon(repo, ['install-hooks', 'claude'])).code).toBe(0);
    expect((await daemon(repo, ['install-hooks', 'codex'])).code).toBe(0);
    expect((await doctor(repo)).healthy).toBe(true);
  });

  it('doctor: a dead socket — a daemon killed with -9 leaves its socket and lock — with its rm fix, after which doctor is healthy', async () => {
    const repo = await user();
    const started = await daemon(repo, ['start']);
    expect(started.code, started.stderr).toBe(0);
    const pid = Number(/pid\s+(\d+)/.exec(started.stdout)![1]);
    process.kill(pid, 'SIGKILL');
    // Dead, every descriptor closed: the kernel closes a dying process's sockets one by one, so the
    // daemon's socket can refuse while its lock still answers for a moment.
    await waitFor(() => !processAlive(pid), { timeoutMs: 30_000, message: 'the killed daemon gone' });
    await waitFor(async () => (await daemon(repo, ['ls'])).stdout === 'no ai-zen daemon is running\n', { timeoutMs: 30_000 });
    // The kernel may release a dead process's last sockets later still (deferred, on a loaded machine): its lock too.
    const lockName = daemonLockName(await fs.realpath(repo.root));
    await waitFor(async () => !(await isLockHeld(lockName, { env })), { timeoutMs: 30_000, message: 'the killed daemon’s lock released' });

    const found = await doctor(repo);
    expect(found.code).toBe(1);
    expect(found.problems).toHaveLength(1);
    const [dead] = found.problems;
    expect(dead!.check).toBe('sockets');
    const real = await fs.realpath(repo.root);
    const files = '(d-[0-9a-f]{16}\\.sock, daemon-[0-9a-f]{24}\\.lock|daemon-[0-9a-f]{24}\\.lock, d-[0-9a-f]{16}\\.sock)';
    const escaped = real.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(dead!.message).toMatch(new RegExp(`^1 dead daemon \\(no daemon answers on the socket\\): ${escaped} \\(${files}\\)$`));
    expect(dead!.fix).toMatch(/^rm /);
    // Named from anywhere: by what the daemon recorded beside its socket, not by the folder doctor runs in.
    const home = env.HOME!;
    const fromHome = async () =>
      JSON.parse((await runCli(['doctor', '--json'], { cwd: home, env, bin: DAEMON_BIN, timeoutMs: 60_000 })).stdout) as {
        findings: Finding[];
      };
    expect((await fromHome()).findings.find((finding) => finding.check === 'sockets')!.message).toContain(`: ${real} (`);
    // Without that record, and not run in the repo, doctor says plainly it cannot name it.
    const record = (await fs.readdir(path.join(repo.home, 'run'))).filter((name) => name.endsWith('.repo'));
    expect(record).toHaveLength(1);
    await fs.rm(path.join(repo.home, 'run', record[0]!));
    expect((await fromHome()).findings.find((finding) => finding.check === 'sockets')!.message).toContain(
      ': a repo that cannot be named (',
    );
    expect((await doctor(repo)).problems[0]!.message).toContain(`: ${real} (`);
    await run('sh', ['-c', dead!.fix!]);
    expect((await doctor(repo)).healthy).toBe(true);
  });

  it('doctor: a clean stop leaves nothing it complains about', async () => {
    const repo = await user();
    const started = await daemon(repo, ['start']);
    expect(started.code, started.stderr).toBe(0);
    expect((await daemon(repo, ['stop'])).code).toBe(0);
    const found = await doctor(repo);
    expect(found.problems.filter((problem) => problem.check === 'sockets')).toEqual([]);
  });

  it('doctor: an untrusted repo whose config is ignored, with the trust fix', async () => {
    const repo = await user();
    await fs.mkdir(path.join(repo.root, '.ai-zen'), { recursive: true });
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'config.json'), '{ "model": "their-model" }\n');
    const found = await doctor(repo);
    expect(found.code).toBe(1);
    expect(found.problems).toEqual([
      expect.objectContaining({ check: 'trust', message: expect.stringMatching(new RegExp(`^${repo.root} is untrusted: `)) }),
    ]);
    expect(found.problems[0]!.fix).toContain(`cd ${repo.root} && ai-zen-daemon trust`);
    expect((await daemon(repo, ['trust'])).code).toBe(0);
    expect((await doctor(repo)).healthy).toBe(true);
  });

  it('doctor: malformed config JSON (the user file) and an enabled repo that is gone, each with its fix', async () => {
    const repo = await user();
    expect((await daemon(repo, ['enable'])).code).toBe(0);
    await fs.writeFile(path.join(repo.home, 'config.json'), '{ "model": "x", }\n');
    await fs.writeFile(path.join(repo.home, 'enabled.json'), JSON.stringify({ global: false, repos: ['/no/such/repo', repo.root] }));
    const found = await doctor(repo);
    expect(found.code).toBe(1);
    expect(found.problems.map((finding) => [finding.check, finding.message.split(':')[0]])).toEqual([
      ['config', path.join(repo.home, 'config.json')],
      ['config', '/no/such/repo is enabled but no longer there (moved or deleted)'],
    ]);
    expect(found.problems[0]!.message).toContain('not valid JSON');
    expect(found.problems[0]!.fix).toBe(`fix ${path.join(repo.home, 'config.json')} (see docs/configuration.md) or move it away`);
    expect(found.problems[1]!.fix).toContain(`remove "/no/such/repo" from ${path.join(repo.home, 'enabled.json')}`);
  });

  it('doctor: a wrong Node — a node 18 first on the PATH — with the fix', async () => {
    const repo = await user();
    const bin = path.join(path.dirname(repo.root), 'old node');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'node'), '#!/bin/sh\necho v18.20.4\n', { mode: 0o755 });
    const found = await doctor(repo, { PATH: `${bin}:${process.env.PATH}` });
    expect(found.code).toBe(1);
    expect(found.problems).toEqual([
      {
        check: 'node',
        status: 'problem',
        message: 'the node on the PATH is v18.20.4; ai-zen needs >=20.19 (its commands run with it)',
        fix: 'install Node >=20.19 (e.g. nvm install 22) and put it first on the PATH',
      },
    ]);
  });

  it('doctor: a stale shim (it names an ai-zen that is gone) and a login unit that is out of date, each with its fix', async () => {
    const repo = await user();
    // A systemctl whose user manager answers, as on a desktop: enable links the unit (none runs here).
    const stubs = path.join(path.dirname(repo.root), 'stub bin');
    await fs.mkdir(stubs);
    await fs.writeFile(
      path.join(stubs, 'systemctl'),
      `#!/bin/sh\nif [ "$2" = enable ]; then mkdir -p "$XDG_CONFIG_HOME/systemd/user/default.target.wants" && ln -sf "$XDG_CONFIG_HOME/systemd/user/ai-zen.service" "$XDG_CONFIG_HOME/systemd/user/default.target.wants/ai-zen.service"; fi\n`,
      { mode: 0o755 },
    );
    env = { ...env, PATH: `${stubs}:${process.env.PATH}` };
    expect((await daemon(repo, ['enable'])).code).toBe(0);
    expect((await daemon(repo, ['service', 'install', '--platform', 'linux'])).code).toBe(0);
    const shim = path.join(repo.home, 'bin', 'ai-zen-daemon');
    await fs.writeFile(shim, (await fs.readFile(shim, 'utf8')).replace(/^script=.*$/m, 'script=/gone/ai-zen-daemon.js'));
    const unit = path.join(env.XDG_CONFIG_HOME!, 'systemd', 'user', 'ai-zen.service');
    await fs.appendFile(unit, 'Environment=EXTRA=1\n');

    const found = await doctor(repo);
    expect(found.code).toBe(1);
    expect(found.problems.map((finding) => [finding.check, finding.fix])).toEqual([
      ['shim', 'ai-zen-daemon enable (or install-hooks claude|codex) points it at this ai-zen'],
      ['service', 'ai-zen-daemon service install'],
    ]);
    expect(found.problems[0]!.message).toBe(`${shim} runs an ai-zen that is no longer there`);
    expect(found.problems[1]!.message).toContain(`${unit} is not what service install writes now`);
    expect((await daemon(repo, ['enable'])).code).toBe(0);
    expect((await daemon(repo, ['service', 'install', '--platform', 'linux'])).code).toBe(0);
    expect((await doctor(repo)).healthy).toBe(true);
  });
});
