// Handoff commits signed as the user's own `git commit` signs them. `commit-tree` is plumbing: it
// ignores `commit.gpgSign`, so with it on the handoff commits were made unsigned while the user's
// own commits fail unsigned. Here the setting is read and `-S` passed, which signs with git's own
// `gpg.format` (openpgp, ssh, x509) and `user.signingKey`; a signer that cannot finish (a passphrase
// prompt nobody answers in a daemon) is stopped after the hook timeout, and the commit refused.
import type { GitRun } from '../../probe/run-git.js';

/** What git does without a hook timeout of the caller's: the hooks' own default. */
export const SIGNING_TIMEOUT_MS = 120_000;

/** `['-S']` when the repository's git config says to sign commits, else none. */
export async function signingArgs(git: (args: string[]) => Promise<GitRun>): Promise<string[]> {
  const sign = await git(['config', '--type=bool', '--get', 'commit.gpgSign']);
  return sign.ok && sign.stdout.trim() === 'true' ? ['-S'] : [];
}

/** The refusal's reason when a signing commit-tree failed. */
export function describeSigningFailure(failure: string, timeoutMs: number): string {
  return /timed out/.test(failure)
    ? `commit.gpgSign is on and signing did not finish within ${Math.round(timeoutMs / 1000)} s (a passphrase nobody can type here?); not committed unsigned`
    : `commit.gpgSign is on and signing the commit failed (${failure}); not committed unsigned`;
}
