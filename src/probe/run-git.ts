// One git invocation through simple-git that reports its outcome instead of throwing,
// so probes and the committer can say *why* something is unknown or refused.
import { simpleGit } from 'simple-git';
import type { Env } from '../paths.js';
import { gitEnvironment } from './git-environment.js';

export type GitRun =
  | { readonly ok: true; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly exitCode: number | null; readonly stdout: string; readonly stderr: string; readonly message: string };

export interface RunGitOptions {
  /** The caller's environment; optional locks are switched off on top of it. */
  readonly env?: Env;
  /** Variables set for this call only (GIT_INDEX_FILE for a temporary index). */
  readonly extraEnv?: Env;
  /** Kill git when it prints nothing for this long (a hung signing agent, a stale NFS mount). */
  readonly timeoutMs?: number;
}

/*
 * simple-git refuses environment variables such as EDITOR, PAGER, GIT_CONFIG_GLOBAL or
 * GIT_SSH_COMMAND unless allowed: it guards apps that pass untrusted arguments. Our arguments
 * are fixed by this code and the environment is the user's own, which git must see as it is
 * (GIT_CONFIG_GLOBAL may hold their identity), so the env-driven categories are allowed.
 */
const USER_ENVIRONMENT_ALLOWED = {
  allowUnsafeAlias: true,
  allowUnsafeAskPass: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeEditor: true,
  allowUnsafeFilter: true,
  allowUnsafeFsMonitor: true,
  allowUnsafeGitProxy: true,
  allowUnsafeGpgProgram: true,
  allowUnsafeHooksPath: true,
  allowUnsafeMergeDriver: true,
  allowUnsafePager: true,
  allowUnsafeSshCommand: true,
  allowUnsafeTemplateDir: true,
} as const;

export async function runGit(cwd: string, args: readonly string[], options: RunGitOptions = {}): Promise<GitRun> {
  let exitCode: number | null = null;
  let stdout = '';
  let stderr = '';
  try {
    const git = simpleGit({
      baseDir: cwd,
      timeout: { block: options.timeoutMs ?? 60_000 },
      unsafe: USER_ENVIRONMENT_ALLOWED,
      // simple-git treats a non-zero exit with empty stderr as success (`symbolic-ref -q`);
      // record every outcome and turn any non-zero exit into a failure.
      errors(error, result) {
        exitCode = result.exitCode;
        stdout = Buffer.concat(result.stdOut).toString('utf8');
        stderr = Buffer.concat(result.stdErr).toString('utf8');
        if (error !== undefined) return error;
        return result.exitCode === 0 ? undefined : new Error(`git exited with code ${result.exitCode}`);
      },
    }).env(gitEnvironment(options.env, options.extraEnv));
    const output = await git.raw([...args]);
    return { ok: true, stdout: output, stderr };
  } catch (error) {
    const text = stderr.trim() || (error instanceof Error ? error.message : String(error));
    return { ok: false, exitCode, stdout, stderr, message: firstLine(text) };
  }
}

/** The most telling line of git's complaint: the first `fatal:`/`error:` line, else the first line. */
export function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const telling = lines.find((line) => /^(fatal|error):/.test(line));
  return (telling ?? lines[0] ?? 'git failed').replace(/^(fatal|error):\s*/, '');
}

export function isNotARepository(run: GitRun): boolean {
  return !run.ok && /not a git repository/i.test(run.stderr + run.message);
}
