// `ai-zen-daemon service install|uninstall`, as a user runs it: the CLI spawned with a
// temp HOME, XDG_CONFIG_HOME and AI_ZEN_HOME (with spaces and a `%` in them); the unit judged by the
// real systemd-analyze, the plist by python3's plistlib; systemctl and launchctl replaced by
// recording stubs (no user manager runs here), or absent to prove the printed commands.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const run = promisify(execFile);

interface Setup {
  readonly repo: TempRepo;
  readonly env: Record<string, string>;
  readonly home: string;
  readonly aiZenHome: string;
  readonly unitFile: string;
  readonly stubs: string;
  readonly calls: string;
}

describe('ai-zen-daemon service install|uninstall', { timeout: 120_000 }, () => {
  const setups: Setup[] = [];
  afterEach(async () => {
    for (const setup of setups.splice(0)) {
      await runCli(['stop', '--all'], { cwd: setup.repo.root, env: setup.env, bin: DAEMON_BIN, timeoutMs: 60_000 }).catch(() => {});
      await setup.repo.cleanup();
    }
  });

  /** A user whose folders have spaces (and a `%`, a systemd specifier) in them; `tools` are stubbed on PATH. */
  async function user(tools: readonly ('systemctl' | 'launchctl')[], failing = false): Promise<Setup> {
    const repo = await makeTempRepo();
    const base = path.dirname(repo.root);
    const home = path.join(base, 'my home');
    const aiZenHome = path.join(home, 'ai zen 100%');
    const config = path.join(base, 'xdg config');
    const stubs = path.join(base, 'stub bin');
    const calls = path.join(base, 'calls.txt');
    await fs.mkdir(home, { recursive: true });
    await fs.mkdir(stubs, { recursive: true });
    // Only the stubs and what a shell and the daemon need: the real systemctl of this machine must not be found.
    for (const tool of ['git', 'sh']) await fs.symlink(await toolPath(tool), path.join(stubs, tool));
    for (const tool of tools) {
      const stub = path.join(stubs, tool);
      // As the real one: `systemctl --user enable` links the unit into default.target.wants; with no user
      // manager (a container, an ssh session) it fails the way systemctl does there.
      const enable = `if [ "$2" = enable ]; then mkdir -p "$XDG_CONFIG_HOME/systemd/user/default.target.wants" && ln -sf "$XDG_CONFIG_HOME/systemd/user/ai-zen.service" "$XDG_CONFIG_HOME/systemd/user/default.target.wants/ai-zen.service"; fi\n`;
      const body = failing
        ? `echo 'Failed to connect to bus: No medium found' >&2\nexit 1\n`
        : `${tool === 'systemctl' ? enable : ''}exit 0\n`;
      await fs.writeFile(stub, `#!/bin/sh\nprintf '%s\\n' "${tool} $*" >> '${calls}'\n${body}`, { mode: 0o755 });
    }
    const env = {
      HOME: home,
      AI_ZEN_HOME: aiZenHome,
      XDG_CONFIG_HOME: config,
      PATH: stubs,
      GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const setup = { repo, env, home, aiZenHome, unitFile: path.join(config, 'systemd', 'user', 'ai-zen.service'), stubs, calls };
    setups.push(setup);
    return setup;
  }

  const daemon = (setup: Setup, args: string[], cwd = setup.repo.root) =>
    runCli(args, { cwd, env: setup.env, bin: DAEMON_BIN, timeoutMs: 60_000 });
  const calls = async (setup: Setup) => (await fs.readFile(setup.calls, 'utf8').catch(() => '')).split('\n').filter(Boolean);

  it('service install writes a systemd user unit that the real systemd-analyze verify accepts (paths with spaces), enables it through systemctl --user, install twice = same file, uninstall disables and removes it, twice is fine', async () => {
    const setup = await user(['systemctl']);
    const installed = await daemon(setup, ['service', 'install', '--platform', 'linux']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`wrote ${setup.unitFile}`);
    const unit = await fs.readFile(setup.unitFile, 'utf8');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).toContain(`ExecStart=-"${setup.aiZenHome.replace(/%/g, '%%')}/bin/ai-zen-daemon" start --enabled`);
    expect(unit).toContain(`ExecStop="${setup.aiZenHome.replace(/%/g, '%%')}/bin/ai-zen-daemon" stop --enabled`);

    // The platform's own judge: a user manager's view (it needs a runtime folder), warnings included.
    const runtime = path.join(path.dirname(setup.home), 'runtime');
    await fs.mkdir(runtime, { mode: 0o700 });
    const verified = await run('/usr/bin/systemd-analyze', ['--user', 'verify', setup.unitFile], {
      env: { ...process.env, XDG_RUNTIME_DIR: runtime, HOME: setup.home, XDG_CONFIG_HOME: setup.env.XDG_CONFIG_HOME },
    });
    expect(verified.stderr).toBe('');
    expect(await calls(setup)).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable --now ai-zen.service']);

    const again = await daemon(setup, ['service', 'install', '--platform', 'linux', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ file: setup.unitFile, changed: false, toRun: [] });
    expect(await fs.readFile(setup.unitFile, 'utf8')).toBe(unit);

    await fs.writeFile(setup.calls, '');
    const removed = await daemon(setup, ['service', 'uninstall', '--platform', 'linux']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed ${setup.unitFile}`);
    await expect(fs.access(setup.unitFile)).rejects.toThrow();
    expect(await calls(setup)).toEqual(['systemctl --user disable --now ai-zen.service', 'systemctl --user daemon-reload']);
    const twice = await daemon(setup, ['service', 'uninstall', '--platform', 'linux']);
    expect(twice).toMatchObject({ code: 0, stdout: `ai-zen-daemon: no ai-zen service installed (${setup.unitFile})\n` });
  });

  it('without systemctl, service install still writes the unit and prints the exact commands to run, and exits 1 in one line: not enabled; uninstall removes the unit and its enable link and prints what is left', async () => {
    const setup = await user([]);
    const installed = await daemon(setup, ['service', 'install', '--platform', 'linux']);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toBe(
      `ai-zen-daemon: ${setup.unitFile} is written but not enabled: systemctl is not on the PATH; run systemctl --user daemon-reload && systemctl --user enable --now ai-zen.service where your login's service manager answers\n`,
    );
    expect(installed.stdout).toContain('systemctl is not on the PATH');
    expect(installed.stdout).toContain('    systemctl --user daemon-reload && systemctl --user enable --now ai-zen.service\n');
    await fs.access(setup.unitFile);
    const dryRun = await daemon(setup, ['service', 'uninstall', '--platform', 'linux', '--dry-run']);
    expect(dryRun.stdout).toContain(`would remove ${setup.unitFile}`);
    await fs.access(setup.unitFile);

    // What `systemctl --user enable` makes, done elsewhere (a desktop login): ours to take away too.
    const wants = path.join(path.dirname(setup.unitFile), 'default.target.wants');
    await fs.mkdir(wants);
    await fs.symlink(setup.unitFile, path.join(wants, 'ai-zen.service'));
    const removed = await daemon(setup, ['service', 'uninstall', '--platform', 'linux']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('systemctl --user stop ai-zen.service && systemctl --user daemon-reload');
    expect(await fs.readdir(path.dirname(setup.unitFile))).toEqual(['default.target.wants']);
    expect(await fs.readdir(wants)).toEqual([]);
  });

  it("the unit's ExecStart, run by hand through sh, starts an enabled repo's daemon (ls lists it), and its ExecStop stops it", async () => {
    const setup = await user(['systemctl']);
    expect((await daemon(setup, ['enable'])).code).toBe(0);
    expect((await daemon(setup, ['service', 'install', '--platform', 'linux'])).code).toBe(0);
    const unit = await fs.readFile(setup.unitFile, 'utf8');
    const line = (key: string) =>
      unit
        .split('\n')
        .find((each) => each.startsWith(`${key}=`))!
        .slice(key.length + 1);
    // As systemd would: `-` is a flag, `%%` a `%`; the Environment= line gives AI_ZEN_HOME.
    const execStart = line('ExecStart').replace(/^-/, '').replace(/%%/g, '%');
    const execStop = line('ExecStop').replace(/%%/g, '%');
    const environment = /^"AI_ZEN_HOME=(.*)"$/.exec(line('Environment'))![1]!.replace(/%%/g, '%');
    expect(environment).toBe(setup.aiZenHome);
    const shellEnv = { PATH: setup.env.PATH, HOME: setup.home, AI_ZEN_HOME: environment, GIT_CONFIG_NOSYSTEM: '1' };
    const elsewhere = path.dirname(setup.repo.root);

    const started = await run('sh', ['-c', execStart], { cwd: elsewhere, env: shellEnv });
    expect(started.stdout).toContain(`started for ${setup.repo.root}`);
    const listed = JSON.parse((await daemon(setup, ['ls', '--json'], elsewhere)).stdout) as { daemons: { repo: string }[] };
    expect(listed.daemons.map((entry) => entry.repo)).toEqual([setup.repo.root]);
    const again = await run('sh', ['-c', execStart], { cwd: elsewhere, env: shellEnv });
    expect(again.stdout).toContain(`already running for ${setup.repo.root}`);

    const stopped = await run('sh', ['-c', execStop], { cwd: elsewhere, env: shellEnv });
    expect(stopped.stdout).toContain(`stopped ${setup.repo.root}`);
    expect((await daemon(setup, ['ls'], elsewhere)).stdout).toBe('no ai-zen daemon is running\n');
  });

  it('on macOS, service install writes a launchd agent that plistlib parses (ProgramArguments: the shim, start --enabled; RunAtLoad) and bootstraps it with launchctl; uninstall boots it out and removes it', async () => {
    const setup = await user(['launchctl']);
    const installed = await daemon(setup, ['service', 'install', '--platform', 'darwin', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    const { file } = JSON.parse(installed.stdout) as { file: string };
    expect(file).toBe(path.join(setup.home, 'Library', 'LaunchAgents', 'dev.ai-zen.daemons.plist'));
    const parsed = await run('python3', [
      '-c',
      'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))',
      file,
    ]);
    const plist = JSON.parse(parsed.stdout) as Record<string, unknown>;
    const shim = path.join(setup.aiZenHome, 'bin', 'ai-zen-daemon');
    expect(plist).toMatchObject({
      Label: 'dev.ai-zen.daemons',
      ProgramArguments: [shim, 'start', '--enabled'],
      RunAtLoad: true,
      EnvironmentVariables: { AI_ZEN_HOME: setup.aiZenHome },
    });
    expect((await fs.stat(shim)).mode & 0o111).not.toBe(0);
    const uid = process.getuid!();
    expect(await calls(setup)).toEqual([`launchctl bootout gui/${uid}/dev.ai-zen.daemons`, `launchctl bootstrap gui/${uid} ${file}`]);

    await fs.writeFile(setup.calls, '');
    const removed = await daemon(setup, ['service', 'uninstall', '--platform', 'darwin']);
    expect(removed.code, removed.stderr).toBe(0);
    await expect(fs.access(file)).rejects.toThrow();
    expect(await calls(setup)).toEqual([`launchctl bootout gui/${uid}/dev.ai-zen.daemons`]);
  });

  it('systemctl --user failing (no user manager): service install exits 1 with one line naming the failure, and doctor calls the unit not enabled', async () => {
    const setup = await user(['systemctl'], true);
    const installed = await daemon(setup, ['service', 'install', '--platform', 'linux']);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toBe(
      `ai-zen-daemon: ${setup.unitFile} is written but not enabled: systemctl --user daemon-reload failed: Failed to connect to bus: No medium found; run systemctl --user daemon-reload && systemctl --user enable --now ai-zen.service where your login's service manager answers\n`,
    );
    const doctor = await daemon(setup, ['doctor', '--json']);
    const service = (JSON.parse(doctor.stdout) as { findings: { check: string; status: string; message: string }[] }).findings.filter(
      (finding) => finding.check === 'service',
    );
    expect(service).toEqual([
      expect.objectContaining({ status: 'problem', message: `${setup.unitFile} is installed but not enabled: nothing starts it at login` }),
    ]);
    expect(doctor.code).toBe(1);
  });

  it('service install refuses a file of the same name it did not write, and leaves it as it was', async () => {
    const setup = await user(['systemctl']);
    await fs.mkdir(path.dirname(setup.unitFile), { recursive: true });
    await fs.writeFile(setup.unitFile, '[Service]\nExecStart=/bin/true\n');
    for (const action of ['install', 'uninstall']) {
      const refused = await daemon(setup, ['service', action, '--platform', 'linux']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^ai-zen-daemon: .*was not written by ai-zen-daemon.*\n$/);
    }
    expect(await fs.readFile(setup.unitFile, 'utf8')).toBe('[Service]\nExecStart=/bin/true\n');
  });

  it('service install refuses an AI_ZEN_HOME with a $, a quote or a backslash in one line, writing no unit systemd would reject or run wrong', async () => {
    const setup = await user(['systemctl']);
    for (const [odd, said] of [
      ['$HOME', 'a $'],
      ['"q', 'a quote'],
      ["'q", 'a quote'],
      ['\\q', 'a backslash'],
    ] as const) {
      const home = path.join(setup.home, `ai-zen ${odd}`);
      const env = { ...setup.env, AI_ZEN_HOME: home };
      for (const args of [
        ['service', 'install', '--platform', 'linux'],
        ['service', 'install', '--platform', 'linux', '--dry-run'],
      ]) {
        const refused = await runCli(args, { cwd: setup.repo.root, env, bin: DAEMON_BIN, timeoutMs: 60_000 });
        expect(refused.code, odd).toBe(2);
        expect(refused.stderr, odd).toBe(
          `ai-zen-daemon: AI_ZEN_HOME ${JSON.stringify(home)} has ${said}, which a systemd unit cannot carry in the command it runs: set it to a path without $, quotes or backslashes (nothing was written)\n`,
        );
      }
      await expect(fs.access(setup.unitFile), odd).rejects.toThrow();
      await expect(fs.access(path.join(home, 'bin', 'ai-zen-daemon')), odd).rejects.toThrow();
    }
    expect(await calls(setup)).toEqual([]);
  });
});

async function toolPath(tool: string): Promise<string> {
  return (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim();
}
