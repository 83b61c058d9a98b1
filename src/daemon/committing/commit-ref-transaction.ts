// Moves HEAD with `git update-ref --stdin` in transaction mode (git ≥ 2.28), so the git process is
// started and waiting BEFORE the user's index is locked: under the lock, `prepare` (lock the ref,
// compare its value) and `commit` are one line each over a pipe, not a process start each.
// Closing stdin before `commit` aborts the transaction and releases the ref's lock.
import type { Env } from '../../paths.js';
import { startGit } from '../../probe/spawn-git.js';
import { firstLine } from '../../probe/run-git.js';

export type StepResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface RefTransaction {
  /**
   * Locks HEAD (and the branch it names), checks it still points at `oldId`, and writes it with its
   * reflog — all sent in one write, so git answers after one wake-up, not two (on a busy machine
   * each wake-up of another process costs milliseconds, spent while the user's index is locked).
   */
  prepareAndCommit(newId: string, oldId: string): Promise<StepResult>;
  /** Releases everything without writing (safe to call in any state, and more than once). */
  abort(): Promise<void>;
}

/** Starts `git update-ref -m <reflog message> --stdin` and its transaction; resolves once git said `start: ok`. */
export async function startRefTransaction(
  cwd: string,
  reflogMessage: string,
  env: Env | undefined,
): Promise<RefTransaction | { readonly failed: string }> {
  const child = startGit(cwd, ['update-ref', '-m', reflogMessage, '--stdin'], env);
  let buffered = '';
  let stderr = '';
  let exited = false;
  const waiting: { expect: string; resolve: (result: StepResult) => void }[] = [];
  const exitedPromise = new Promise<void>((resolve) => child.on('close', () => resolve()));

  const failAll = (message: string) => {
    for (const waiter of waiting.splice(0)) waiter.resolve({ ok: false, message });
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line === waiter.expect ? { ok: true } : { ok: false, message: `git said ${JSON.stringify(line)}` });
      newline = buffered.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => {
    exited = true;
    failAll(`cannot run git: ${error.message}`);
  });
  child.on('close', (code) => {
    exited = true;
    failAll(firstLine(stderr.trim() || `git update-ref exited with code ${code}`));
  });

  const steps = (command: string, ...expected: string[]): Promise<StepResult[]> => {
    if (exited)
      return Promise.resolve(
        expected.map(() => ({ ok: false as const, message: firstLine(stderr.trim() || 'git update-ref has exited') })),
      );
    const answers = expected.map((expect) => new Promise<StepResult>((resolve) => waiting.push({ expect, resolve })));
    child.stdin.write(command);
    return Promise.all(answers);
  };
  const abort = async () => {
    if (!exited) child.stdin.end();
    await exitedPromise;
  };

  const [started = { ok: false, message: 'no answer' }] = await steps('start\n', 'start: ok');
  if (!started.ok) {
    await abort();
    return { failed: started.message };
  }
  return {
    async prepareAndCommit(newId, oldId) {
      const answers = await steps(`update HEAD ${newId} ${oldId}\nprepare\ncommit\n`, 'prepare: ok', 'commit: ok');
      await abort();
      return answers.find((answer) => !answer.ok) ?? { ok: true };
    },
    abort,
  };
}
