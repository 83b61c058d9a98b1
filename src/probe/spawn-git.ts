// git spawned directly, for the handoff committer. simple-git (run-git.ts) waits 50 ms after a
// git that printed nothing before it reports the exit; the committer runs a dozen short git
// processes per commit, some of them while the user's index is locked, so it cannot pay that.
// Same result shape as runGit, plus what runGit cannot do: stdin, and a long-lived git.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Env } from '../paths.js';
import { gitEnvironment } from './git-environment.js';
import { firstLine, type GitRun, type RunGitOptions } from './run-git.js';

export interface SpawnGitOptions extends RunGitOptions {
  /** Written to git's stdin, which is then closed. */
  readonly input?: string | Buffer;
}

export function spawnGit(cwd: string, args: readonly string[], options: SpawnGitOptions = {}): Promise<GitRun> {
  return new Promise<GitRun>((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = startGit(cwd, args, options.env, options.extraEnv);
    } catch (error) {
      resolve({ ok: false, exitCode: null, stdout: '', stderr: '', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // git may exit before reading all of its input (a refusal): that is its answer, not ours to report.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, exitCode: null, stdout: '', stderr: '', message: `cannot run git: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (code === 0 && !timedOut) return resolve({ ok: true, stdout: out, stderr: err });
      const why = timedOut ? `git ${args[0] ?? ''} timed out` : err.trim() || `git exited with code ${code}`;
      resolve({ ok: false, exitCode: code, stdout: out, stderr: err, message: firstLine(why) });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A git process with its pipes open, in ai-zen's git environment. */
export function startGit(cwd: string, args: readonly string[], env?: Env, extraEnv?: Env): ChildProcessWithoutNullStreams {
  return spawn('git', [...args], { cwd, env: gitEnvironment(env, extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
}
