// Secrets reached git through the offline executor and a Claude transcript (11 of 24
// survived). Here a corpus of realistic planted secrets (test/support/secret-corpus.ts) goes through
// both paths as a user and an agent would put them there — pasted in a request, run in a command
// (folded onto one line by the document), said in the last answer — and none may survive in the
// document (recall 100%); the project's own source, scanned the same way, loses nothing (no false
// positive). AI_ZEN_WRITE_SECRETS_REPORT=1 writes the figures to bench/SECRETS.md.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { reserveHandoffDoc } from '../../src/handoff/doc-path.js';
import { buildOfflineDocument, MAX_REQUEST_QUOTE } from '../../src/handoff/executors/offline-document.js';
import { createOfflineExecutor } from '../../src/handoff/executors/offline-executor.js';
import { sealDocument } from '../../src/handoff/seal-document.js';
import { scanForSecrets, scanOwnRules as scanOwnRulesOnly } from '../../src/handoff/secret-scan.js';
import { builtInSkill } from '../../src/handoff/skill.js';
import { silentLogger } from '../../src/log/logger.js';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import type { AgentMessage } from '../../src/session/session-recorder.js';
import { makeClaudeHome, runClaude } from '../support/claude-client.js';
import { anthropicReply, startFakeAnthropic } from '../support/fake-anthropic.js';
import { ordinaryCode } from '../support/ordinary-code.js';
import { secretCorpus, type PlantedSecret } from '../support/secret-corpus.js';
import { heldOutSecretCorpus } from '../support/secret-corpus-held-out.js';
import { unseenSecretCorpus } from '../support/secret-corpus-unseen.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo } from '../daemon/daemon-harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = secretCorpus();
const heldOut = heldOutSecretCorpus();
const unseen = unseenSecretCorpus();
/** The recall the unseen corpus reached when first measured; the rules were not changed after. */
const UNSEEN_RECALL_FLOOR = 0.5;
const report: { corpus: string; path: string; planted: number; redacted: number; missed: string[] }[] = [];
const falsePositives: { files: number; bytes: number; findings: string[] } = { files: 0, bytes: 0, findings: [] };
const ordinaryFindings: string[] = [];
const dependencyCode: { files: number; bytes: number; findings: string[] } = { files: 0, bytes: 0, findings: [] };

/** The corpus entries any of whose secrets is still in the text. */
function survivors(text: string, entries: readonly PlantedSecret[]): PlantedSecret[] {
  return entries.filter((entry) => entry.secrets.some((secret) => text.includes(secret)));
}

function record(pathName: string, document: string, entries: readonly PlantedSecret[], corpusName = 'first'): void {
  const missed = survivors(document, entries).map((entry) => entry.kind);
  report.push({ corpus: corpusName, path: pathName, planted: entries.length, redacted: entries.length - missed.length, missed });
}

/** An ai-zen transcript: each request a user turn, each command an exec call, the deliveries the agent's answers. */
function transcript(entries: readonly PlantedSecret[], longRequest: string): AgentMessage[] {
  const messages: AgentMessage[] = [{ message: { role: 'system', content: 'You are a coding agent.' }, definition: true }];
  let call = 0;
  for (const entry of entries) {
    if (entry.place === 'request') messages.push({ message: { role: 'user', content: `Set this up for me:\n${entry.text}` } });
    if (entry.place === 'command') {
      const id = `call-${++call}`;
      messages.push({
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: 'exec', arguments: JSON.stringify({ command: entry.text }) } }],
        },
      });
      messages.push({ message: { role: 'tool', tool_call_id: id, content: '[exit code 0]' } });
    }
  }
  messages.push({ message: { role: 'user', content: longRequest } });
  const deliveries = entries.filter((entry) => entry.place === 'delivery').map((entry) => entry.text);
  messages.push({ message: { role: 'assistant', content: deliveries.join('\n') } });
  return messages;
}

afterAll(async () => {
  if (process.env.AI_ZEN_WRITE_SECRETS_REPORT !== '1') return;
  const kinds = [...new Set(corpus.map((entry) => entry.kind))];
  const heldOutKinds = [...new Set(heldOut.map((entry) => entry.kind))];
  const lines = [
    '# Secret redaction: recall and false positives',
    '',
    `Written by \`AI_ZEN_WRITE_SECRETS_REPORT=1 npx vitest run test/handoff/secret-recall.test.ts\` (after \`npm run build\`), ${new Date().toISOString().slice(0, 10)}.`,
    `The first corpus is test/support/secret-corpus.ts: ${corpus.length} realistic planted secrets of ${kinds.length} kinds, made at test time.`,
    `The unseen corpus is test/support/secret-corpus-unseen.ts: ${unseen.length} secrets of kinds unlike both, written after the rules and measured once; the rules were not changed after.`,
    `The held-out corpus is test/support/secret-corpus-held-out.ts: ${heldOut.length} secrets of ${heldOutKinds.length} kinds the first lacks.`,
    'It was written and committed before the rules were changed (the scanner of that day redacted 23 of its 99); the rules were then written',
    'by someone who had read it, so its figure below is an upper bound on recall over kinds nobody has seen, not a measure of it.',
    '',
    'Before (the scanner at main 67171f6, measured once by scanning each entry alone): first 64 of 64, held-out 23 of 99, unseen 18 of 40;',
    '3 of the 49 ordinary-code snippets flagged; 312 findings in the same node_modules files.',
    '',
    '| corpus | path | planted | redacted | recall | missed |',
    '|---|---|---|---|---|---|',
    ...report.map(
      (row) =>
        `| ${row.corpus} | ${row.path} | ${row.planted} | ${row.redacted} | ${((100 * row.redacted) / row.planted).toFixed(1)}% | ${row.missed.join(', ') || '—'} |`,
    ),
    '',
    'False positives:',
    '',
    `- the project's own src/, README.md, ARCHITECTURE.md and SKILL.md: ${falsePositives.findings.length} findings in ${falsePositives.files} files (${Math.round(falsePositives.bytes / 1024)} KiB)${falsePositives.findings.length > 0 ? `: ${falsePositives.findings.join('; ')}` : ''};`,
    `- test/support/ordinary-code.ts (${ordinaryCode().length} snippets of code that names secrets without holding one): ${ordinaryFindings.length} findings${ordinaryFindings.length > 0 ? `: ${ordinaryFindings.join('; ')}` : ''};`,
    `- every .js, .ts, .md, .json and .yml file under node_modules/ (other projects' code, docs and tests; ai-zen's own rules only, secretlint's not run): ${dependencyCode.findings.length} findings in ${dependencyCode.files} files (${Math.round(dependencyCode.bytes / 1_000_000)} MB), ${((dependencyCode.findings.length * 1_000_000) / Math.max(1, dependencyCode.bytes)).toFixed(1)} per MB. By rule: ${Object.entries(
      dependencyCode.findings.reduce<Record<string, number>>((counts, finding) => {
        const rule = finding.split(': ')[1]?.split(' ')[0] ?? '?';
        counts[rule] = (counts[rule] ?? 0) + 1;
        return counts;
      }, {}),
    )
      .map(([rule, count]) => `${rule} ${count}`)
      .join(
        ', ',
      )}. Most are passwords in other projects' tests and examples (\`password: "asdf"\`, \`secret: 'hidden'\`); the ones that are not secrets at all include RFC grammar in comments (\`token = 1*tchar\`) and a documentation's placeholder webhook.`,
    '',
    'Kinds of the first corpus:',
    '',
    kinds.map((kind) => `\`${kind}\``).join(', '),
    '',
    'Kinds of the held-out corpus:',
    '',
    heldOutKinds.map((kind) => `\`${kind}\``).join(', '),
    '',
  ];
  await fs.writeFile(path.join(ROOT, 'bench', 'SECRETS.md'), lines.join('\n'));
});

describe('secrets never reach the document', () => {
  it(`the offline executor: all ${corpus.length} planted secrets are redacted — private keys folded by ⏎, a key cut by the ${MAX_REQUEST_QUOTE}-character quote, lower-case and spaced assignments, mysql -p, Bearer, JWT`, async () => {
    await using repo = await makeTempRepo();
    // A request longer than the quote: the cut falls inside a key, which the document would show half of.
    const cutKey = corpus.find((entry) => entry.kind === 'stripe-live')!.secrets[0]!;
    const longRequest = `${'Please wire up the payments module as described. '.repeat(20).slice(0, MAX_REQUEST_QUOTE - 12)}${cutKey} is the key.`;
    const messages = transcript(corpus, longRequest);
    const facts = await createFactsProvider({ root: repo.root }).capture();
    const doc = await reserveHandoffDoc({ root: repo.root, sessionId: 'feedbeef-1111-2222-3333-444455556666' });
    const input = {
      root: repo.root,
      doc,
      skill: builtInSkill(),
      facts,
      factsBlock: renderFacts(facts),
      sessionId: 'feedbeef-1111-2222-3333-444455556666',
      sessionFile: '.ai-zen/sessions/feedbeef-1111-2222-3333-444455556666.jsonl',
      messages,
      maxContextTokens: 100_000,
      logger: silentLogger(),
    };
    // Every secret is planted where the document shows it: unscanned, the document holds them all.
    const unscanned = buildOfflineDocument({ ...input, sections: input.skill.sections });
    expect(survivors(unscanned, corpus).map((entry) => entry.kind)).toEqual(corpus.map((entry) => entry.kind));
    expect(unscanned).toContain(cutKey.slice(0, 10));
    expect(unscanned).toContain('-----BEGIN RSA PRIVATE KEY----- ⏎ MII');

    const outcome = await createOfflineExecutor().run(input);
    expect(outcome.ok).toBe(true);
    const sealed = await sealDocument(repo.root, doc);
    const document = await fs.readFile(doc.absolute, 'utf8');
    record('offline executor (ai-zen session)', document, corpus);
    expect(survivors(document, corpus).map((entry) => entry.kind)).toEqual([]);
    expect(document).not.toContain(cutKey.slice(0, 10));
    expect(sealed.redactions).toBeGreaterThanOrEqual(corpus.length);
    // What is around a secret stays readable.
    expect(document).toMatch(/`mysql -u root -p\[redacted: password-flag\] -h 127\.0\.0\.1 shop`/);
    expect(document).toContain("`cat > deploy.pem <<'EOF' ⏎ [redacted: privatekey] ⏎ EOF`");
    expect(document).toContain('db_password=[redacted: secret-assignment]');
  });

  it(`the offline executor: the ${heldOut.length} secrets of the held-out corpus (PuTTY, SSH2 and printf-written keys, age keys, other vendors, .npmrc, docker config, .netrc, .pgpass, signed URLs, webhooks, split literals) are redacted`, async () => {
    await using repo = await makeTempRepo();
    const messages = transcript(heldOut, 'Carry on with the deployment.');
    const facts = await createFactsProvider({ root: repo.root }).capture();
    const doc = await reserveHandoffDoc({ root: repo.root, sessionId: 'feedbeef-1111-2222-3333-444455556677' });
    const input = {
      root: repo.root,
      doc,
      skill: builtInSkill(),
      facts,
      factsBlock: renderFacts(facts),
      sessionId: 'feedbeef-1111-2222-3333-444455556677',
      sessionFile: '.ai-zen/sessions/feedbeef-1111-2222-3333-444455556677.jsonl',
      messages,
      maxContextTokens: 100_000,
      logger: silentLogger(),
    };
    // Planted where the document shows them: unscanned, it holds every one.
    const unscanned = buildOfflineDocument({ ...input, sections: input.skill.sections });
    expect(survivors(unscanned, heldOut).map((entry) => entry.kind)).toEqual(heldOut.map((entry) => entry.kind));
    const outcome = await createOfflineExecutor().run(input);
    expect(outcome.ok).toBe(true);
    await sealDocument(repo.root, doc);
    const document = await fs.readFile(doc.absolute, 'utf8');
    record('offline executor (ai-zen session)', document, heldOut, 'held-out');
    expect(survivors(document, heldOut).map((entry) => entry.kind)).toEqual([]);
    // A key's marker and what follows it are gone; the words around a secret stay.
    expect(document).not.toContain('Private-Lines:');
    expect(document).toContain('tailscale up --authkey=[redacted: ');
  });

  it(`the offline executor: the ${unseen.length} secrets of the unseen corpus, measured once and not tuned to, keep their recall`, async () => {
    await using repo = await makeTempRepo();
    const messages = transcript(unseen, 'Carry on with the deployment.');
    const facts = await createFactsProvider({ root: repo.root }).capture();
    const doc = await reserveHandoffDoc({ root: repo.root, sessionId: 'feedbeef-1111-2222-3333-444455556688' });
    const input = {
      root: repo.root,
      doc,
      skill: builtInSkill(),
      facts,
      factsBlock: renderFacts(facts),
      sessionId: 'feedbeef-1111-2222-3333-444455556688',
      sessionFile: '.ai-zen/sessions/feedbeef-1111-2222-3333-444455556688.jsonl',
      messages,
      maxContextTokens: 100_000,
      logger: silentLogger(),
    };
    const unscanned = buildOfflineDocument({ ...input, sections: input.skill.sections });
    expect(survivors(unscanned, unseen).map((entry) => entry.kind)).toEqual(unseen.map((entry) => entry.kind));
    const outcome = await createOfflineExecutor().run(input);
    expect(outcome.ok).toBe(true);
    await sealDocument(repo.root, doc);
    const document = await fs.readFile(doc.absolute, 'utf8');
    record('offline executor (ai-zen session)', document, unseen, 'unseen');
    const redacted = unseen.length - survivors(document, unseen).length;
    expect(redacted / unseen.length).toBeGreaterThanOrEqual(UNSEEN_RECALL_FLOOR);
  });

  it('no false positive on ordinary code that names secrets: a dependency named password, a constant named token, hashes, certificates, public keys, variables', async () => {
    for (const entry of ordinaryCode()) {
      for (const finding of await scanForSecrets(entry.text))
        ordinaryFindings.push(`${entry.kind}: ${finding.rule} ${JSON.stringify(entry.text.slice(finding.start, finding.end))}`);
    }
    expect(ordinaryFindings).toEqual([]);
    expect(await scanForSecrets('"@inquirer/password": "^4.0.23"')).toEqual([]);
    expect(await scanForSecrets('IETFToken = "ietf-token"')).toEqual([]);
  });

  it("false positives on other people's code: every .js, .ts, .md, .json and .yml file under node_modules is scanned and the findings counted", async () => {
    const files = (await fs.readdir(path.join(ROOT, 'node_modules'), { recursive: true })).filter((file) =>
      /\.(?:m?js|ts|md|json|ya?ml)$/.test(file),
    );
    for (const file of files.sort()) {
      const text = await fs.readFile(path.join(ROOT, 'node_modules', file), 'utf8').catch(() => '');
      dependencyCode.files += 1;
      dependencyCode.bytes += text.length;
      for (const finding of scanOwnRulesOnly(text)) {
        dependencyCode.findings.push(`${file}: ${finding.rule} ${JSON.stringify(text.slice(finding.start, finding.end).slice(0, 40))}`);
      }
    }
    expect(dependencyCode.bytes).toBeGreaterThan(20_000_000);
    // Most findings are passwords written in other projects' tests and examples (`password: "asdf"`),
    // which a document should hide too; the bound is what the rules reach, at most 5 per MB.
    expect(dependencyCode.findings.length).toBeLessThanOrEqual((5 * dependencyCode.bytes) / 1_000_000);
  }, 180_000);

  it("no false positive: the project's own source, README and skill lose nothing to the scanner", async () => {
    const files = (await fs.readdir(path.join(ROOT, 'src'), { recursive: true }))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.join('src', file));
    for (const file of [...files, 'README.md', 'ARCHITECTURE.md', 'skills/handoff/SKILL.md']) {
      const text = await fs.readFile(path.join(ROOT, file), 'utf8');
      falsePositives.files += 1;
      falsePositives.bytes += text.length;
      for (const finding of await scanForSecrets(text))
        falsePositives.findings.push(`${file}: ${finding.rule} ${JSON.stringify(text.slice(finding.start, finding.end))}`);
    }
    expect(falsePositives.files).toBeGreaterThan(100);
    expect(falsePositives.findings).toEqual([]);
  }, 60_000);

  it(`a Claude Code transcript (the real client): all ${corpus.length} planted secrets and the ${heldOut.length} of the held-out corpus, run as Bash commands and said in the answer, are redacted in the committed document; the unseen corpus keeps its recall`, async () => {
    const fake = await startFakeAnthropic();
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-secrets-'));
    const claude = await makeClaudeHome(base);
    const daemon = await makeDaemonRepo({ env: claude.env, config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
    try {
      await daemon.start();
      const client = await daemon.connect();
      const seen: AnyEvent[] = [];
      await client.subscribe((event: AnyEvent) => seen.push(event));
      // `:` runs nothing (no network, no file but the heredoc's): the command text is what the transcript keeps.
      const planted = [...corpus, ...heldOut, ...unseen];
      const commands = planted
        .filter((entry) => entry.place !== 'delivery')
        .map((entry) => (entry.place === 'command' ? `: ${entry.text}` : `: cat >> notes.txt <<'EOF'\n${entry.text}\nEOF`));
      const reply = anthropicReply().text('Setting everything up.');
      for (const command of commands) reply.tool('Bash', { command });
      const answer = planted.filter((entry) => entry.place === 'delivery').map((entry) => entry.text);
      fake.enqueue(
        reply.usage({ input_tokens: 30_000, output_tokens: 50 }),
        anthropicReply()
          .text(`Done.\n${answer.join('\n')}`)
          .usage({ input_tokens: 20_000, cache_read_input_tokens: 130_000, output_tokens: 30 }),
      );
      const result = await runClaude('Set up the deployment credentials from my notes', {
        cwd: daemon.root,
        home: claude,
        baseURL: fake.baseURL,
        timeoutMs: 120_000,
        // A 200k model: 150k crosses 70% (the default claude-opus-5-5 has 1M).
        args: ['--model', 'claude-sonnet-4-6'],
      });
      expect(result.code, result.stderr).toBe(0);
      await waitFor(() => seen.some((event) => event.name === 'handoff.committed'), {
        timeoutMs: 60_000,
        message: 'the handoff to be committed',
      });
      const [doc] = await handoffDocs(daemon.root);
      const committed = execFileSync('git', ['show', `HEAD:${doc}`], { cwd: daemon.root, encoding: 'utf8' });
      record('Claude Code transcript (daemon, offline)', committed, corpus);
      record('Claude Code transcript (daemon, offline)', committed, heldOut, 'held-out');
      record('Claude Code transcript (daemon, offline)', committed, unseen, 'unseen');
      expect(survivors(committed, corpus).map((entry) => entry.kind)).toEqual([]);
      expect(survivors(committed, heldOut).map((entry) => entry.kind)).toEqual([]);
      expect(1 - survivors(committed, unseen).length / unseen.length).toBeGreaterThanOrEqual(UNSEEN_RECALL_FLOOR);
      // The commands are in the document, each with its secret redacted.
      expect(committed).toContain('-p[redacted: password-flag] -h 127.0.0.1 shop');
      expect(committed).toContain("`: cat > deploy.pem <<'EOF' ⏎ [redacted: privatekey] ⏎ EOF`");
      expect(committed).toContain('API_KEY="[redacted: secret-assignment]"');
      expect(committed).toContain('curl -H "Authorization: Bearer [redacted: authorization]" https://api.example.com/v1/me');
    } finally {
      await daemon.cleanup();
      await fake.close();
      await fs.rm(base, { recursive: true, force: true });
    }
  }, 180_000);
});
