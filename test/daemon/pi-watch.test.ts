// With the real pi coding agent (`@mariozechner/pi-coding-agent`) driven offline against
// the fake Anthropic server, in a temp repo and a temp HOME, while a real daemon watches: the
// session files it reads are the ones pi itself wrote. One pi run per case, on pi's default model
// (anthropic/claude-opus-4-7: 1M window) and on a pinned one (anthropic/claude-sonnet-4-5: 200k).
// What pi itself counts is read from pi: a test extension records `ctx.getContextUsage()` (the
// number pi's footer shows) at each stop.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { listPiSessions, makePiHome, PI_DEFAULT_MODEL, type PiHome, runPi } from '../support/pi-client.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const PINNED = 'anthropic/claude-sonnet-4-5';
const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** A pi extension that writes what pi counts at each stop, one JSON line a stop. */
const MEASURE = `import { appendFileSync } from 'node:fs';
export default function (pi) {
  pi.on('agent_end', async (_event, ctx) => {
    const usage = ctx.getContextUsage();
    appendFileSync(process.env.PI_MEASURE_FILE, JSON.stringify({ file: ctx.sessionManager.getSessionFile(), model: ctx.model.provider + '/' + ctx.model.id, tokens: usage?.tokens ?? null, contextWindow: usage?.contextWindow ?? null }) + '\\n');
  });
}
`;

interface Measured {
  readonly file: string;
  readonly model: string;
  readonly tokens: number | null;
  readonly contextWindow: number | null;
}

describe('pi sessions, with the real client', { timeout: 120_000 }, () => {
  let fake: FakeAnthropic;
  let daemon: DaemonRepo;
  let pi: PiHome;
  let measureFile: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async (context) => {
    if (process.env.X3_DEBUG && context.task.result?.state === 'fail') {
      console.log(JSON.stringify(await daemon.status().catch(() => null), null, 1));
      console.log(await fs.readFile(path.join(daemon.root, '.ai-zen', 'logs', 'daemon.log'), 'utf8').catch(() => 'no log'));
    }
    await daemon?.cleanup();
    await fake?.close();
  });

  async function setUp(pi_: object = {}): Promise<void> {
    daemon = await makeDaemonRepo({ config: { agents: { pi: { graceSeconds: 0, ...pi_ } } } });
    pi = await makePiHome(path.dirname(daemon.root), { baseURL: fake.baseURL });
    await fs.mkdir(path.join(pi.agentDir, 'extensions'));
    await fs.writeFile(path.join(pi.agentDir, 'extensions', 'measure.ts'), MEASURE);
    measureFile = path.join(path.dirname(daemon.root), 'measured.jsonl');
    // The daemon and the client share pi's folder (the harness gives the daemon an empty one).
    daemon.env.PI_CODING_AGENT_DIR = pi.agentDir;
  }

  const run = (prompt: string, cwd: string, model?: string) =>
    runPi([...(model ? ['--model', model] : []), '-p', prompt], { cwd, home: pi, env: { PI_MEASURE_FILE: measureFile } });
  const measured = async (): Promise<Measured[]> =>
    (await fs.readFile(measureFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Measured);
  const piSession = async (file: string) => (await daemon.status()).sessions.find((session) => session.transcript === file);
  const listedWith = (file: string, tokens: number) =>
    waitFor(
      async () => {
        const session = await piSession(file);
        return session?.promptTokens === tokens ? session : null;
      },
      { timeoutMs: 30_000, message: `the pi session ${path.basename(file)} listed at ${tokens} tokens` },
    );

  it('pi: a session in this repo is listed (status, status --json, sessions over IPC) with the context pi itself counts and the window of its model — default and pinned; a session of another repo whose folder name shares the prefix is not listed', async () => {
    await setUp();
    await daemon.start();
    // Another repo beside this one: `/…/repo-other` is pi's folder `--…-repo-other--`, which starts like this repo's.
    const other = `${daemon.root}-other`;
    await fs.mkdir(other);
    fake.enqueue(anthropicReply().text('other repo').usage({ input_tokens: 900_000, output_tokens: 10 }));
    expect((await run('work elsewhere', other)).code).toBe(0);

    // Default model: a tool call, then the answer; 300k input + 99k cache read + 1k output = 40% of 1M.
    fake.enqueue(
      anthropicReply().tool('bash', { command: 'ls' }).usage({ input_tokens: 5_000, output_tokens: 20 }),
      anthropicReply().text('Looked at it.').usage({ input_tokens: 300_000, cache_read_input_tokens: 99_000, output_tokens: 1_000 }),
    );
    const first = await run('look at the files', daemon.root);
    expect(first.code, first.stderr).toBe(0);
    // Pinned: 50k of 200k.
    fake.enqueue(anthropicReply().text('Pinned.').usage({ input_tokens: 40_000, cache_creation_input_tokens: 9_990, output_tokens: 10 }));
    const second = await run('and with sonnet', daemon.root, PINNED);
    expect(second.code, second.stderr).toBe(0);

    const files = await listPiSessions(pi);
    expect(files).toHaveLength(3);
    const [elsewhere] = files.filter((file) => file.includes('-other--'));
    const counted = await measured();
    const ofRepo = counted.filter((entry) => entry.file !== elsewhere);
    expect(ofRepo.map((entry) => [entry.model, entry.tokens, entry.contextWindow])).toEqual([
      [PI_DEFAULT_MODEL, 400_000, 1_000_000],
      [PINNED, 50_000, 200_000],
    ]);
    for (const entry of ofRepo) {
      const session = await listedWith(entry.file, entry.tokens!);
      expect(session).toMatchObject({
        agent: 'pi',
        model: entry.model,
        promptTokens: entry.tokens,
        maxContextTokens: entry.contextWindow,
        percent: Math.round((entry.tokens! * 100) / entry.contextWindow!),
        handoffAt: 70,
        overflowed: false,
      });
      // pi compacts at the window less 16,384 reserved tokens.
      expect(session!.compactsAt).toBe(Math.floor(((entry.contextWindow! - 16_384) * 100) / entry.contextWindow!));
    }
    const status = await daemon.status();
    expect(status.sessions.filter((session) => session.agent === 'pi')).toHaveLength(2);
    expect(status.sessions.some((session) => session.transcript === elsewhere)).toBe(false);
    const text = (await daemon.daemon(['status'])).stdout;
    for (const entry of ofRepo) expect(text).toContain(shortId(path.basename(entry.file, '.jsonl').split('_')[1]!));
    const client = await daemon.connect();
    const overIpc = await client.request<{ sessions: { agent?: string; promptTokens: number | null }[] }>('sessions');
    expect(
      overIpc.sessions
        .filter((session) => session.agent === 'pi')
        .map((session) => session.promptTokens)
        .sort(),
    ).toEqual([400_000, 50_000].sort());
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });

  it('pi: a session crossing handoffAtTokens is handed off offline — a committed document with the nine sections, the user’s request and its command, a fresh `pi` to continue, the session file byte-identical; `handoff <prefix>` hands off the pinned-model session by hand', async () => {
    await setUp({ handoffAtTokens: 100_000 });
    await daemon.start();
    fake.enqueue(
      anthropicReply().tool('bash', { command: 'echo step > notes.txt' }).usage({ input_tokens: 20_000, output_tokens: 20 }),
      anthropicReply().text('Wrote notes.txt.').usage({ input_tokens: 120_000, output_tokens: 30 }),
    );
    const crossed = await run('write the notes file', daemon.root);
    expect(crossed.code, crossed.stderr).toBe(0);
    const [file] = await listPiSessions(pi);
    const before = await sha(file!);
    const handoff = await waitFor(async () => (await daemon.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the committed handoff',
    });
    const id = path.basename(file!, '.jsonl').split('_')[1]!;
    expect(handoff).toMatchObject({ agent: 'pi', executor: 'offline' });
    expect(handoff.path).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(id)}\\.md$`));
    const doc = await fs.readFile(path.join(daemon.root, handoff.path), 'utf8');
    const headings = doc
      .split('\n')
      .filter((line) => line.startsWith('## '))
      .map((line) => line.slice(3));
    expect(headings).toEqual([...HANDOFF_SECTIONS]);
    expect(doc).toContain('write the notes file');
    expect(doc).toMatch(/`echo step > notes\.txt` — exit 0/);
    expect(handoff.successorCommand).toMatch(/^pi "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/);
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(handoff.path);
    const session = (await daemon.status()).sessions.find((listed) => listed.id === id)!;
    expect(session.successorCommand).toBe(handoff.successorCommand);

    // By hand: the pinned model's session, far below its threshold.
    fake.enqueue(anthropicReply().text('Small one.').usage({ input_tokens: 30_000, output_tokens: 10 }));
    expect((await run('a small question', daemon.root, PINNED)).code).toBe(0);
    const pinned = (await listPiSessions(pi)).find((candidate) => candidate !== file)!;
    const pinnedId = path.basename(pinned, '.jsonl').split('_')[1]!;
    await listedWith(pinned, 30_010);
    const pinnedBefore = await sha(pinned);
    const byHand = await daemon.daemon(['handoff', shortId(pinnedId).slice(0, 6)]);
    expect(byHand.stderr).toBe('');
    expect(byHand.code).toBe(0);
    const [docPath, written, next] = byHand.stdout.trimEnd().split('\n');
    expect(docPath).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(pinnedId)}\\.md$`));
    expect(written).toBe(`  written by offline for pi session ${shortId(pinnedId)}`);
    expect(next).toMatch(/^ {2}continue with: pi "Read the handoff document \.ai-zen\/handoffs\/.+\.md \(the previous session's record\)/);
    expect(await fs.readFile(path.join(daemon.root, docPath!), 'utf8')).toContain('a small question');
    expect(await sha(file!)).toBe(before);
    expect(await sha(pinned)).toBe(pinnedBefore);
  });

  it('pi compacting by itself (past the window less its reserve, pinned 200k model) is recorded: its compaction line counted in status, the context unknown until the next reply (as pi’s getContextUsage says after a compaction)', async () => {
    // The daemon stays out of the way: only pi's own compaction happens.
    await setUp({ handoffAt: 100, models: { [PINNED]: { compactsAt: 100 } } });
    await daemon.start();
    // 190k of 200k: over 200k − 16,384, so pi compacts after the turn (its summary request has no tools).
    fake.enqueue(anthropicReply().text('Read everything.').usage({ input_tokens: 189_000, output_tokens: 1_000 }));
    const result = await run('read the whole tree', daemon.root, PINNED);
    expect(result.code, result.stderr).toBe(0);
    const [file] = await listPiSessions(pi);
    const lines = (await fs.readFile(file!, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; tokensBefore?: number });
    expect(lines.filter((line) => line.type === 'compaction')).toHaveLength(1);
    const session = await waitFor(
      async () => {
        const listed = await piSession(file!);
        return listed?.compactions === 1 ? listed : null;
      },
      { timeoutMs: 30_000, message: 'the compaction in status' },
    );
    expect(session.promptTokens).toBeNull();
    expect(session.lastCompactionAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await measured()).at(-1)).toMatchObject({ model: PINNED });
    expect(await handoffDocs(daemon.root)).toEqual([]);
  });
});
