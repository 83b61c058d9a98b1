// Where ai-zen cannot work it says so in one line and exits non-zero — a bare
// repository (no daemon starts in it), a repo the user cannot write, a settings file that is not
// JSON — never "unexpected error" pointing at a log that does not exist.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_BIN } from '../daemon/daemon-harness.js';
import { CLI_PATH } from '../support/run-cli.js';
import { runCli } from '../support/run-cli-in-process.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const NOBODY = 65534;
const canDropToNobody =
  process.getuid?.() === 0 && spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'true']).status === 0;

describe('one clear line where ai-zen cannot work', () => {
  let repo: TempRepo | null = null;
  afterEach(async () => {
    await repo?.cleanup();
    repo = null;
  });

  it('a daemon refuses to start inside a bare repository (or a .git folder), in one line, writing nothing there', async () => {
    repo = await makeTempRepo();
    const bare = path.join(path.dirname(repo.root), 'origin.git');
    await repo.git('init', '-q', '--bare', bare);
    const env = { AI_ZEN_HOME: repo.home, XDG_RUNTIME_DIR: path.join(repo.home, 'run') };
    const before = (await fs.readdir(bare)).sort();
    for (const cwd of [bare, path.join(bare, 'hooks'), path.join(repo.root, '.git')]) {
      const started = await runCli(['start'], { cwd, env, bin: DAEMON_BIN });
      expect(started.code, cwd).toBe(2);
      expect(started.stdout, cwd).toBe('');
      expect(started.stderr, cwd).toMatch(
        /^ai-zen-daemon: \S+ is (a bare git repository|inside a repository's \.git folder), with no working tree to work in: run this in a clone with a working tree\n$/,
      );
    }
    const printed = await runCli(['-p', 'hello'], { cwd: bare, env });
    expect(printed.code).toBe(2);
    expect(printed.stderr).toContain('is a bare git repository');
    expect((await fs.readdir(bare)).sort()).toEqual(before);
    await expect(fs.access(path.join(repo.root, '.git', '.ai-zen'))).rejects.toThrow();
  });

  it.skipIf(!canDropToNobody)(
    'a repo the user cannot write: ai-zen and ai-zen-daemon say so in one line, no "unexpected error", no log to look for',
    async () => {
      repo = await makeTempRepo();
      // Another user's clone, readable by all, writable by its owner only.
      const base = path.dirname(repo.root);
      await fs.chmod(base, 0o755);
      const home = path.join(base, 'nobody-home');
      await fs.mkdir(home, { mode: 0o777 });
      await fs.chmod(home, 0o777);
      for (const [bin, args] of [
        [CLI_PATH, ['-p', 'hello']],
        [DAEMON_BIN, ['start']],
      ] as const) {
        const result = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, bin, ...args], {
          cwd: repo.root,
          encoding: 'utf8',
          timeout: 30_000,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            AI_ZEN_HOME: path.join(home, 'ai-zen'),
            XDG_RUNTIME_DIR: path.join(home, 'run'),
            OPENAI_API_KEY: 'sk-test',
            OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
          },
        });
        const name = path.basename(bin, '.js');
        expect(result.status, result.stderr).toBe(1);
        expect(result.stderr).toBe(
          `${name}: cannot create ${repo.root}/.ai-zen/logs: permission denied: ai-zen needs to write in the repo (its .ai-zen folder); is the repo read-only for you?\n`,
        );
      }
    },
  );

  it('a config.json that is not JSON (the project’s, then the user’s): ai-zen and ai-zen-daemon start name the file in one line, never "unexpected error", and a log they point at exists', async () => {
    repo = await makeTempRepo();
    const env = { AI_ZEN_HOME: repo.home, XDG_RUNTIME_DIR: path.join(repo.home, 'run') };
    const projectConfig = path.join(repo.root, '.ai-zen', 'config.json');
    const userConfig = path.join(repo.home, 'config.json');
    await fs.mkdir(path.dirname(projectConfig), { recursive: true });
    for (const [broken, other] of [
      [projectConfig, null],
      [userConfig, projectConfig],
    ] as const) {
      if (other) await fs.rm(other);
      await fs.writeFile(broken, '{ "model": ');
      for (const [bin, args] of [
        [CLI_PATH, ['-p', 'hello']],
        [DAEMON_BIN, ['start']],
      ] as const) {
        const result = await runCli(args, { cwd: repo.root, env, bin });
        const name = path.basename(bin, '.js');
        expect(result.code, `${name} with ${broken}`).toBe(1);
        expect(
          result.stderr.split('\n').filter((line) => line !== ''),
          result.stderr,
        ).toHaveLength(1);
        expect(result.stderr).toMatch(new RegExp(`^${name}: .*${broken.replaceAll('.', '\\.')}: not valid JSON`));
        expect(result.stderr).not.toMatch(/unexpected error/i);
        const log = /\(see (\S+)\)/.exec(result.stderr)?.[1];
        if (log !== undefined) await expect(fs.access(log), `the log ${log}`).resolves.toBeUndefined();
      }
    }
  });

  it('install-hooks on a settings file that is not JSON: the line names the file, not "unexpected error" and a log', async () => {
    repo = await makeTempRepo();
    const codexHome = path.join(repo.home, 'codex-home');
    await fs.mkdir(codexHome, { recursive: true });
    await fs.writeFile(path.join(codexHome, 'hooks.json'), '{"hooks": [');
    const result = await runCli(['install-hooks', 'codex'], {
      cwd: repo.root,
      env: { AI_ZEN_HOME: repo.home, CODEX_HOME: codexHome },
      bin: DAEMON_BIN,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ai-zen-daemon: \S*hooks\.json is not valid JSON; fix it first \(nothing was changed\)\n$/);
    expect(await fs.readFile(path.join(codexHome, 'hooks.json'), 'utf8')).toBe('{"hooks": [');
  });
});
