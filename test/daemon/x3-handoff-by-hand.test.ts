// §3–4 with the real clients: a Claude Code session and two Codex sessions a moment apart
// are handed off by hand (`ai-zen-daemon handoff <prefix>`), each from its transcript, which stays
// exactly as the client wrote it; the two Codex sessions (UUIDv7, the same first 8 characters) get
// distinct short ids in `status` and distinct document names.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/short-id.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { codexExec, listRollouts, makeCodexHome } from '../support/codex-client.js';
import { responsesReply, startFakeResponses, type FakeResponses } from '../support/fake-responses.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

describe('§3–4 hand-made handoffs of other agents’ sessions, with the real clients', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let anthropic: FakeAnthropic | undefined;
  let responses: FakeResponses | undefined;
  let base: string | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
    await anthropic?.close();
    await responses?.close();
    if (base) await fs.rm(base, { recursive: true, force: true });
    daemon = anthropic = responses = base = undefined;
  });

  it('§4–5 a Claude Code session is handed off by the prefix status prints, with --goal, from its transcript which is never written (migrate says how instead); once its successor command ran it shows handed off → the successor, folded out of the open list', async () => {
    anthropic = await startFakeAnthropic();
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-byhand-claude-'));
    const claude = await makeClaudeHome(base);
    // Far below its threshold: nothing would hand it off but the person.
    daemon = await makeDaemonRepo({ env: { ...claude.env } });
    await daemon.start();
    anthropic.enqueue(anthropicReply().text('The parser is in src/parse.ts.').usage({ input_tokens: 20_000, output_tokens: 40 }));
    const result = await runClaude('Find where the config is parsed', { cwd: daemon.root, home: claude, baseURL: anthropic.baseURL });
    expect(result.code, result.stderr).toBe(0);
    const [transcript] = await claudeTranscripts(claude);
    const id = path.basename(transcript!, '.jsonl');
    await waitFor(async () => (await daemon!.status()).sessions.some((session) => session.id === id && session.promptTokens !== null), {
      timeoutMs: 30_000,
      message: 'the Claude Code session in status',
    });
    const before = await sha(transcript!);
    const prefix = shortId(id).slice(0, 6);
    expect((await daemon.daemon(['status'])).stdout).toContain(`  ${shortId(id)}  `);

    const handedOff = await daemon.daemon(['handoff', prefix, '--goal', 'make the parser accept comments']);
    expect(handedOff.stderr).toBe('');
    expect(handedOff.code).toBe(0);
    const [docPath, written, next] = handedOff.stdout.trimEnd().split('\n');
    expect(docPath).toMatch(new RegExp(`^\\.ai-zen/handoffs/\\d{8}-\\d{6}-${shortId(id)}\\.md$`));
    expect(written).toBe(`  written by offline for claude-code session ${shortId(id)}`);
    expect(next).toMatch(/^ {2}continue with: claude "Read the handoff document \.ai-zen\/handoffs\/.+\.md /);
    const doc = await fs.readFile(path.join(daemon.root, docPath!), 'utf8');
    expect(doc).toContain('make the parser accept comments');
    expect(doc).toContain('Find where the config is parsed');
    expect(await sha(transcript!)).toBe(before);
    await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.path === docPath && entry.state === 'committed'), {
      timeoutMs: 45_000,
      message: 'the hand-made document committed',
    });
    expect((await daemon.repo.git('log', '-1', '--format=%s')).trim()).toBe(`handoff: ${shortId(id)} (offline)`);

    const migrate = await daemon.daemon(['migrate', prefix]);
    expect(migrate.code).toBe(2);
    expect(migrate.stderr).toBe(
      `ai-zen-daemon: session ${shortId(id)} is a claude-code session: it is handed off, not migrated (ai-zen-daemon handoff ${shortId(id)}, then the command it prints)\n`,
    );
    expect(await sha(transcript!)).toBe(before);

    // §5: the successor command starts a fresh session; from then on the old one is handed off → it.
    const prompt = /^ {2}continue with: claude "((?:[^"\\]|\\.)*)"$/.exec(next!)![1]!.replace(/\\(["$`\\])/g, '$1');
    anthropic.enqueue(anthropicReply().text('Reading the handoff document.').usage({ input_tokens: 9_000, output_tokens: 10 }));
    expect((await runClaude(prompt, { cwd: daemon.root, home: claude, baseURL: anthropic.baseURL })).code).toBe(0);
    const successor = path.basename((await claudeTranscripts(claude)).find((file) => file !== transcript)!, '.jsonl');
    const status = await waitFor(
      async () => {
        const shown = await daemon!.daemon(['status']);
        return shown.stdout.includes(`  ${shortId(successor)}  `) && shown.stdout.includes('1 handed off') ? shown.stdout : null;
      },
      { timeoutMs: 30_000, message: 'the successor listed and its predecessor handed off' },
    );
    expect(status).toContain('sessions (1 open, 1 handed off: status --all shows them)');
    expect(status).not.toContain(`  ${shortId(id)}  `);
    const all = (await daemon.daemon(['status', '--all'])).stdout.split('\n');
    expect(all.find((line) => line.startsWith(`  ${shortId(id)}  `))).toContain(`handed off → ${shortId(successor)}`);
    expect(all.find((line) => line.startsWith(`  ${shortId(successor)}  `))).not.toContain('handed off');
    // A wrong id is answered with the sessions status lists: the successor, not the one handed off.
    const unknown = await daemon.daemon(['handoff', 'zzzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`open ones: ${shortId(successor)} (claude-code)`);
    expect(unknown.stderr).not.toContain(shortId(id));
  });

  it('two Codex sessions a moment apart get distinct short ids in status and distinct document names, each handed off by hand by its prefix; their shared id prefix is ambiguous', async () => {
    responses = await startFakeResponses();
    daemon = await makeDaemonRepo();
    const codex = await makeCodexHome(path.dirname(daemon.root), { baseURL: responses.baseURL });
    (daemon.env as Record<string, string>).CODEX_HOME = codex.codexHome;
    await daemon.start();
    for (const task of ['add a --verbose flag', 'write the changelog']) {
      responses.enqueue(responsesReply().text(`Working on: ${task}.`).usage({ input_tokens: 30_000, output_tokens: 20 }));
      expect((await codexExec(task, { cwd: daemon.root, home: codex })).code).toBe(0);
    }
    const rollouts = await listRollouts(codex);
    expect(rollouts).toHaveLength(2);
    const sessions = await waitFor(
      async () => {
        const listed = (await daemon!.status()).sessions.filter((session) => session.agent === 'codex' && session.promptTokens !== null);
        return listed.length === 2 ? listed : null;
      },
      { timeoutMs: 45_000, message: 'both Codex sessions in status' },
    );
    const [a, b] = sessions.map((session) => session.id);
    // Time-ordered ids made seconds apart: their first characters are the same clock.
    expect(a!.slice(0, 4)).toBe(b!.slice(0, 4));
    const lines = (await daemon.daemon(['status'])).stdout.split('\n').filter((line) => / codex /.test(line));
    const shown = lines.map((line) => line.trim().split(/\s+/)[0]);
    expect(new Set(shown).size).toBe(2);
    expect(shown.sort()).toEqual([shortId(a!), shortId(b!)].sort());
    const before = await Promise.all(rollouts.map(sha));

    const ambiguous = await daemon.daemon(['handoff', a!.slice(0, 4)]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      new RegExp(`names 2 sessions: (${shortId(a!)}|${shortId(b!)}) \\(codex\\), (${shortId(a!)}|${shortId(b!)}) \\(codex\\)`),
    );

    const paths: string[] = [];
    for (const id of [a!, b!]) {
      const handedOff = await daemon.daemon(['handoff', shortId(id).slice(0, 5), '--executor', 'offline']);
      expect(handedOff.stderr).toBe('');
      expect(handedOff.code).toBe(0);
      expect(handedOff.stdout).toContain(
        `  written by offline for codex session ${shortId(id)}\n  continue with: codex "Read the handoff document`,
      );
      paths.push(handedOff.stdout.split('\n')[0]!);
    }
    expect(paths[0]).toMatch(new RegExp(`-${shortId(a!)}\\.md$`));
    expect(paths[1]).toMatch(new RegExp(`-${shortId(b!)}\\.md$`));
    expect((await handoffDocs(daemon.root)).sort()).toEqual([...paths].sort());
    expect(await Promise.all(rollouts.map(sha))).toEqual(before);
  });
});
