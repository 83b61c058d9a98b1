// With the real Cline CLI (3.0.65) offline against the fake OpenAI server, while a real daemon
// watches: a session crossing its threshold is handed off by the offline executor (Cline's hooks not
// installed), its document committed alone; `handoff <prefix>` hands off another by hand. Cline's own
// files are never written.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { authenticateCline, type ClineHome, listClineSessions, makeClineHome, runCline, stopHub } from '../support/cline-client.js';
import { type FakeOpenAI, reply, startFakeOpenAI } from '../support/fake-openai.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

describe('Cline CLI handoffs, with the real client', { timeout: 180_000 }, () => {
  let fake: FakeOpenAI;
  let daemon: DaemonRepo;
  let cline: ClineHome;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(JSON.stringify(await daemon.status().catch(() => null), null, 1));
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    }
    if (cline) await stopHub(cline);
    await daemon?.cleanup();
    await fake?.close();
  });

  it('cline: a session crossing its threshold is handed off offline — a committed document with the nine sections, the user’s request and its command, a fresh `cline` to continue, the session files byte-identical; `handoff <prefix>` hands off a small session by hand', async () => {
    daemon = await makeDaemonRepo({ config: { agents: { cline: { graceSeconds: 0 } } } });
    cline = await makeClineHome(path.dirname(daemon.root));
    daemon.env.CLINE_DIR = cline.dir;
    await daemon.start();
    await authenticateCline(cline, daemon.root, fake.baseURL, 'gpt-4.1');

    // 100,000 of Cline's 128k: past 70%.
    fake.enqueue(
      reply()
        .tool('run_commands', { commands: ['echo step > notes.txt'] })
        .usage({ prompt_tokens: 20_000, completion_tokens: 20 }),
      reply().text('Wrote notes.txt.').usage({ prompt_tokens: 100_000, completion_tokens: 30 }),
    );
    const crossed = await runCline(['--json', 'write the notes file'], { cwd: daemon.root, home: cline });
    expect(crossed.code, crossed.stderr).toBe(0);
    const [file] = await listClineSessions(cline);
    const id = path.basename(path.dirname(file!));
    const manifest = path.join(path.dirname(file!), `${id}.json`);
    const before = [await sha(file!), await sha(manifest)];
    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the committed handoff',
    });
    expect(handoff).toMatchObject({ agent: 'cline', executor: 'offline' });
    expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(id)}\\.md$`));
    const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
    const headings = doc
      .split('\n')
      .filter((line) => line.startsWith('## '))
      .map((line) => line.slice(3));
    expect(headings).toEqual([...HANDOFF_SECTIONS]);
    expect(doc).toContain('write the notes file');
    expect(doc).toMatch(/`echo step > notes\.txt` — exit 0/);
    expect(handoff.successorCommand).toMatch(
      /^cline -i "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
    );
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);
    const session = (await daemon.status()).sessions.find((listed) => listed.id === id)!;
    expect(session.successorCommand).toBe(handoff.successorCommand);

    // By hand: a second session far below its threshold.
    fake.enqueue(reply().text('Small one.').usage({ prompt_tokens: 30_000, completion_tokens: 10 }));
    expect((await runCline(['--json', 'a small question'], { cwd: daemon.root, home: cline })).code).toBe(0);
    const small = (await listClineSessions(cline)).find((candidate) => candidate !== file)!;
    const smallId = path.basename(path.dirname(small));
    await waitFor(async () => (await daemon.status()).sessions.find((listed) => listed.id === smallId && listed.promptTokens === 30_000), {
      timeoutMs: 30_000,
      message: 'the small session listed',
    });
    const byHand = await daemon.daemon(['handoff', shortId(smallId).slice(0, 6)]);
    expect(byHand.stderr).toBe('');
    expect(byHand.code).toBe(0);
    const [docPath, written, next] = byHand.stdout.trimEnd().split('\n');
    expect(docPath).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(smallId)}\\.md$`));
    expect(written).toBe(`  written by offline for cline session ${shortId(smallId)}`);
    expect(next).toMatch(
      /^ {2}continue with: cline -i "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/,
    );
    expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain('a small question');
    expect([await sha(file!), await sha(manifest)]).toEqual(before);
  });
});
