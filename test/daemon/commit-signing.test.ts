// With `commit.gpgSign` on, the user's own `git commit` signs (or fails); the handoff commits were
// made unsigned all the same, by plumbing that ignores the setting. Now they are signed as git signs
// (here with an SSH key, `gpg.format ssh`, verified by `git verify-commit`), on the branch and on the
// side ref, and a signer that fails leaves the document uncommitted with the reason, never unsigned.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, messageLine, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const run = promisify(execFile);
const DEADLINE = { timeoutMs: 40_000 };

/** An SSH signing key for the repo's committer, and the allowed-signers file that verifies it. */
async function signWithSsh(daemon: DaemonRepo, options: { key?: string } = {}): Promise<string> {
  const key = path.join(daemon.repo.home, 'signing-key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ai-zen test', '-f', key]);
  const allowed = path.join(daemon.repo.home, 'allowed-signers');
  await fs.writeFile(allowed, `test@ai-zen.invalid ${await fs.readFile(`${key}.pub`, 'utf8')}`);
  await daemon.repo.git('config', 'gpg.format', 'ssh');
  await daemon.repo.git('config', 'user.signingKey', options.key ?? `${key}.pub`);
  await daemon.repo.git('config', 'gpg.ssh.allowedSignersFile', allowed);
  await daemon.repo.git('config', 'commit.gpgSign', 'true');
  return allowed;
}

async function oneHandoff(daemon: DaemonRepo) {
  const id = sessionId(1);
  await daemon.writeSession(id, { maxContextTokens: 1000 });
  await daemon.appendLines(id, messageLine('user', 'Write the tests.'), usageLine(1310));
  return waitFor(
    async () => {
      const [handoff] = (await daemon.status()).handoffs;
      return handoff && handoff.state !== 'pending' ? handoff : null;
    },
    { ...DEADLINE, message: 'the handoff settled' },
  );
}

describe('handoff commits with commit.gpgSign on', { timeout: 120_000 }, () => {
  let daemon: DaemonRepo | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    daemon = undefined;
  });

  it('on the branch checked out: the handoff commit is signed with the user’s key, and git verify-commit accepts it', async () => {
    daemon = await makeDaemonRepo();
    await signWithSsh(daemon);
    await daemon.start();
    const handoff = await oneHandoff(daemon);
    expect(handoff.state, handoff.reason ?? undefined).toBe('committed');
    expect((await daemon.repo.git('rev-parse', 'HEAD')).trim()).toBe(handoff.commit);
    const verified = await daemon.repo
      .git('verify-commit', '-v', handoff.commit!)
      .catch((error: { stderr?: string }) => `failed: ${error.stderr}`);
    expect(verified).not.toMatch(/^failed/);
    expect((await daemon.repo.git('log', '-1', '--format=%G?', handoff.commit!)).trim()).toBe('G');
  });

  it('on the side ref: the commit is signed too', async () => {
    daemon = await makeDaemonRepo({ config: { daemon: { commit: 'ref' } }, trusted: true });
    await signWithSsh(daemon);
    await daemon.start();
    const handoff = await oneHandoff(daemon);
    expect(handoff.state, handoff.reason ?? undefined).toBe('committed');
    expect(handoff.ref).toBe('refs/heads/ai-zen/handoffs');
    expect((await daemon.repo.git('log', '-1', '--format=%G?', 'ai-zen/handoffs')).trim()).toBe('G');
  });

  it('a signer that fails (its key is gone): not committed, with the reason in handoffs, as the user’s own git commit fails; nothing unsigned lands', async () => {
    daemon = await makeDaemonRepo();
    await signWithSsh(daemon, { key: path.join(daemon.repo.home, 'no-such-key.pub') });
    const headBefore = (await daemon.repo.git('rev-parse', 'HEAD')).trim();
    await expect(daemon.repo.git('commit', '--allow-empty', '-q', '-m', 'the user’s own')).rejects.toThrow();
    await daemon.start();
    const handoff = await oneHandoff(daemon);
    expect(handoff.state).toBe('deferred');
    expect(handoff.reason).toMatch(/^commit\.gpgSign is on and signing the commit failed \(.+\); not committed unsigned$/);
    expect((await daemon.repo.git('rev-parse', 'HEAD')).trim()).toBe(headBefore);
    expect((await daemon.daemon(['handoffs'])).stdout).toContain('not committed: commit.gpgSign is on and signing the commit failed');
  });
});
