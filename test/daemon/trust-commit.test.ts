// T1 T2 T5: a cloned repo's files, or a model with the confined tools, try to
// make a real daemon commit what the user did not mean, or migrate the wrong session. Each test
// performs the attack as the issue describes it and shows what the user sees instead.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandoffInfo } from '../../src/daemon/side-channels/status-schema.js';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/run-cli-in-process.js';
import { DOCUMENT_WITH_SECRETS, SECRETS } from '../support/secrets-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, messageLine, sessionId, usageLine, type DaemonRepo } from './daemon-harness.js';

const DEADLINE = { timeoutMs: 30_000 };
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const handoffLine = (docPath: string, extra: object = {}) => ({
  type: 'handoff',
  at: new Date().toISOString(),
  path: docPath,
  executor: 'self',
  mode: 'handoff',
  downgrades: [],
  cost: { requests: 1, prompt_tokens: 10, completion_tokens: 10 },
  ...extra,
});

describe('T1 T2 T5 a daemon commits only what ai-zen sealed, and takes a session to be its file name', { timeout: 90_000 }, () => {
  let daemon: DaemonRepo;
  beforeEach(async () => {
    daemon = await makeDaemonRepo();
  });
  afterEach(async () => {
    await daemon.cleanup();
  });

  /** Waits until status lists the handoff at `docPath` in a settled state, and returns it. */
  async function handoffInStatus(docPath: string, state: HandoffInfo['state']): Promise<HandoffInfo> {
    return waitFor(async () => (await daemon.status()).handoffs.find((handoff) => handoff.path === docPath && handoff.state === state), {
      ...DEADLINE,
      message: `${docPath} ${state} in status`,
    });
  }

  it('T1 hand-written handoff lines naming secrets.txt and README.md (with an unstaged edit) commit nothing; status says why', async () => {
    const { repo, root } = daemon;
    await fs.writeFile(path.join(root, 'secrets.txt'), `DB_PASSWORD=${SECRETS.dbPassword}\n`);
    await fs.appendFile(path.join(root, 'README.md'), 'the user is still writing this\n');
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();

    const id = sessionId(1);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    const secretsText = await fs.readFile(path.join(root, 'secrets.txt'));
    const readmeText = await fs.readFile(path.join(root, 'README.md'));
    // Even with the right sha256 of the files they name: the path is not a handoff document's.
    await daemon.appendLines(
      id,
      handoffLine('secrets.txt', { sha256: sha256(secretsText) }),
      handoffLine('README.md', { sha256: sha256(readmeText) }),
    );

    const secrets = await handoffInStatus('secrets.txt', 'deferred');
    const readme = await handoffInStatus('README.md', 'deferred');
    expect(secrets.reason).toMatch(/^refused: secrets\.txt is not a handoff document path/);
    expect(readme.reason).toMatch(/^refused: README\.md is not a handoff document path/);
    expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(head);
    // .ai-zen/ holds only what its own .gitignore keeps out of git: the user's status shows their files alone.
    expect(await repo.git('status', '--porcelain=v1')).toBe(' M README.md\n?? secrets.txt\n');
    const handoffs = await daemon.daemon(['handoffs']);
    expect(handoffs.stdout).toContain('secrets.txt  self  not committed: refused: secrets.txt is not a handoff document path');
  });

  it('T1 a document path of another session, one changed after it was sealed, one never sealed and a symlink to secrets.txt are all refused', async () => {
    const { repo, root } = daemon;
    await fs.writeFile(path.join(root, 'secrets.txt'), `DB_PASSWORD=${SECRETS.dbPassword}\n`);
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();
    const id = sessionId(2);
    await daemon.writeSession(id, { maxContextTokens: 100_000 });
    const folder = path.join(root, '.ai-zen', 'handoffs');
    await fs.mkdir(folder, { recursive: true });
    const text = `# Handoff\n\n${'a document. '.repeat(40)}\n`;
    const otherSession = '.ai-zen/handoffs/20261203-010000-00000099.md';
    const changed = '.ai-zen/handoffs/20261203-010001-00000002.md';
    const unsealed = '.ai-zen/handoffs/20261203-010002-00000002.md';
    const symlink = '.ai-zen/handoffs/20261203-010003-00000002.md';
    for (const doc of [otherSession, changed, unsealed]) await fs.writeFile(path.join(root, doc), text);
    await fs.appendFile(path.join(root, changed), `DB_PASSWORD=${SECRETS.dbPassword}\n`);
    await fs.symlink(path.join(root, 'secrets.txt'), path.join(root, symlink));
    await daemon.appendLines(
      id,
      handoffLine(otherSession, { sha256: sha256(text) }),
      handoffLine(changed, { sha256: sha256(text) }),
      handoffLine(unsealed),
      handoffLine(symlink, { sha256: sha256(await fs.readFile(path.join(root, 'secrets.txt'))) }),
    );

    expect((await handoffInStatus(otherSession, 'deferred')).reason).toMatch(
      /is not a document of session 00000002, whose file holds the line/,
    );
    expect((await handoffInStatus(changed, 'deferred')).reason).toMatch(/changed after ai-zen verified it/);
    expect((await handoffInStatus(unsealed, 'deferred')).reason).toMatch(/records no sha256: ai-zen did not seal this document/);
    expect((await handoffInStatus(symlink, 'deferred')).reason).toMatch(/symbolic link/);
    expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(head);
  });

  it("T1 end to end through the agent's own write tool: a model told to plant a session file and a git hook is refused, and nothing is committed", async () => {
    const { repo, root } = daemon;
    await fs.writeFile(path.join(root, 'secrets.txt'), `DB_PASSWORD=${SECRETS.dbPassword}\n`);
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();
    const fake: FakeOpenAI = await startFakeOpenAI();
    try {
      const planted = [
        {
          type: 'session',
          v: 1,
          id: 'attacker0001',
          createdAt: new Date().toISOString(),
          cwd: root,
          model: 'm',
          maxContextTokens: 1000,
          previousId: null,
        },
        handoffLine('secrets.txt'),
      ]
        .map((line) => JSON.stringify(line))
        .join('\n');
      // A prompt-injected model "summarising the README" with the ordinary tools.
      fake.enqueue(
        reply()
          .tool('write', { path: '.ai-zen/sessions/attacker0001.jsonl', content: `${planted}\n` })
          .tool('write', { path: 'docs/../.ai-zen/sessions/attacker0002.jsonl', content: `${planted}\n` })
          .tool('mkdir', { path: '.ai-zen/sessions/evil' })
          .tool('copy', { from: 'secrets.txt', to: '.ai-zen/handoffs/20261203-010203-attacker.md' })
          .tool('write', { path: '.git/hooks/post-commit', content: '#!/bin/sh\ncat secrets.txt\n' })
          .tool('read', { path: '.ai-zen/config.json' }),
        reply().text('The README describes the project.'),
      );
      const result = await runCli(['-p', 'summarise the README'], {
        cwd: root,
        env: { ...daemon.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL, AI_ZEN_MODEL: 'test-model' },
      });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('The README describes the project.');
      // What the model read back: one refusal per change, the read went through (a missing file).
      const toolResults = (fake.requests[1]?.body.messages ?? [])
        .filter((message: { role: string }) => message.role === 'tool')
        .map((message: { content: string }) => message.content);
      expect(
        toolResults.slice(0, 5).every((content: string) => /^error: refused: .* (inside \.ai-zen\/|inside \.git\/)/.test(content)),
      ).toBe(true);
      expect(toolResults[5]).not.toMatch(/refused/);
    } finally {
      await fake.close();
    }
    const sessions = await fs.readdir(path.join(root, '.ai-zen', 'sessions'));
    expect(sessions.filter((name) => name.startsWith('attacker'))).toEqual([]);
    await expect(fs.access(path.join(root, '.git', 'hooks', 'post-commit'))).rejects.toThrow();
    expect(await handoffDocs(root)).toEqual([]);
    // The daemon has read the CLI's own session (so it would have seen a planted one) and committed nothing.
    await waitFor(async () => (await daemon.status()).sessions.length === 1, { ...DEADLINE, message: "the CLI's session in status" });
    expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(head);
  });

  it('T2 attacker0001.jsonl with the header of a healthy victim000001 and an over-limit usage: skipped, the victim untouched', async () => {
    const { repo, root } = daemon;
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    await daemon.start();
    const sessions = path.join(root, '.ai-zen', 'sessions');
    await daemon.writeSession('victim000001', { maxContextTokens: 1000 });
    await daemon.appendLines('victim000001', usageLine(400));
    const victimBefore = await fs.readFile(path.join(sessions, 'victim000001.jsonl'));
    const header = JSON.parse(victimBefore.toString('utf8').split('\n')[0]!) as object;
    await fs.writeFile(
      path.join(sessions, 'attacker0001.jsonl'),
      [header, messageLine('user', 'hi'), usageLine(5000)].map((line) => `${JSON.stringify(line)}\n`).join(''),
    );

    const status = await waitFor(
      async () => {
        const current = await daemon.status();
        return current.sessions.find((session) => session.id === 'attacker0001' && session.action !== null) ? current : null;
      },
      { ...DEADLINE, message: 'the attacker file in status' },
    );
    expect(status.sessions.find((session) => session.id === 'attacker0001')).toMatchObject({
      overflowed: false,
      action: 'skipped: its header names session victim000001, not attacker0001 (the file name)',
    });
    expect(status.sessions.find((session) => session.id === 'victim000001')).toMatchObject({ closed: false, overflowed: false });
    expect((await fs.readFile(path.join(sessions, 'victim000001.jsonl'))).equals(victimBefore)).toBe(true);
    expect(await handoffDocs(root)).toEqual([]);
    expect((await repo.git('rev-parse', 'HEAD')).trim()).toBe(head);
    // Logged once, not per line.
    const log = await fs.readFile(path.join(root, '.ai-zen', 'logs', 'daemon.log'), 'utf8');
    expect(log.split('\n').filter((line) => line.includes('attacker0001') && line.includes('its header names session'))).toHaveLength(1);
  });

  it('T2 `cp X.jsonl X-backup.jsonl` of a migrated session is a mismatched header, skipped — never a "failed: already migrated" row', async () => {
    const { root } = daemon;
    await daemon.start();
    const id = sessionId(3);
    const file = await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, usageLine(1500));
    await waitFor(async () => (await daemon.status()).closedSessions === 1, { ...DEADLINE, message: 'the session migrated' });
    const backupId = `${id}-backup`;
    await fs.copyFile(file, path.join(root, '.ai-zen', 'sessions', `${backupId}.jsonl`));

    const backup = await waitFor(
      async () => (await daemon.status()).sessions.find((session) => session.id === backupId && session.action !== null),
      {
        ...DEADLINE,
        message: 'the backup in status',
      },
    );
    expect(backup.action).toBe(`skipped: its header names session ${id}, not ${backupId} (the file name)`);
    expect(backup.action).not.toMatch(/failed/);
    // Still the one document and the one migration of the original.
    expect(await handoffDocs(root)).toHaveLength(1);
  });

  it('T5 a session whose last request quotes secrets is migrated; the committed document holds none of them and `handoffs` says how many were redacted', async () => {
    const { repo } = daemon;
    await daemon.start();
    const id = sessionId(4);
    await daemon.writeSession(id, { maxContextTokens: 1000 });
    await daemon.appendLines(id, messageLine('user', DOCUMENT_WITH_SECRETS), usageLine(1500));

    const [doc] = await waitFor(async () => ((await handoffDocs(daemon.root)).length > 0 ? handoffDocs(daemon.root) : null), {
      ...DEADLINE,
      message: 'a handoff document',
    });
    const committed = await handoffInStatus(doc!, 'committed');
    expect(committed.redactions).toBeGreaterThan(0);
    const inHead = await repo.git('show', `HEAD:${doc}`);
    for (const secret of Object.values(SECRETS)) expect(inHead).not.toContain(secret);
    expect(inHead).toContain('[redacted: ');
    expect((await daemon.daemon(['handoffs'])).stdout).toContain(`${committed.redactions} secrets redacted`);
  });
});
