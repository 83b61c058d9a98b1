// With the real Claude Code client (offline, against the fake Anthropic server, a real
// daemon watching): the document of a Claude session has first steps that cannot flood a successor
// (§1), names no path of this machine (§2), carries its verdict (§3), and a successor started from
// it is linked to it and keeps its rules (§4); a self document that fails the checks is sent back
// once, naming what is wrong (§3).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { AnyEvent } from '../../src/events.js';
import { SessionsReply } from '../../src/daemon/side-channels/status-schema.js';
import { shortId } from '../../src/short-id.js';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { claudeTranscripts, makeClaudeHome, runClaude, type ClaudeHome } from '../support/claude-client.js';
import { startInteractiveClaude } from '../support/claude-interactive.js';
import { startDbusSession, type DbusSession, type NotificationService } from '../support/dbus-session.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import { waitFor } from '../support/wait-for.js';
import { handoffDocs, makeDaemonRepo, type DaemonRepo } from './daemon-harness.js';

let fake: FakeAnthropic;
let bus: DbusSession;
let service: NotificationService | null = null;
let daemon: DaemonRepo | null = null;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  bus = await startDbusSession();
});
afterAll(async () => {
  await fake.close();
  await bus.stop();
});
afterEach(async () => {
  await daemon?.cleanup();
  daemon = null;
  await service?.stop();
  service = null;
});

/** A repo with a daemon whose home folder is the Claude user's home (so `~` has something to stand for). */
async function setup(): Promise<{ daemon: DaemonRepo; claude: ClaudeHome; seen: AnyEvent[] }> {
  service = await bus.startNotificationService();
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-documents-'));
  const claude = await makeClaudeHome(base);
  daemon = await makeDaemonRepo({
    env: { ...claude.env, ...bus.env, HOME: claude.home },
    // A 200k window, as these readings were written for (Claude Code's default model now has 1M).
    config: { agents: { 'claude-code': { graceSeconds: 0, contextWindow: 200_000 } } },
    // The project's config (its grace window) counts only in a trusted repo (T4).
    trusted: true,
  });
  await daemon.start();
  const client = await daemon.connect();
  const seen: AnyEvent[] = [];
  await client.subscribe((event: AnyEvent) => seen.push(event));
  return { daemon, claude, seen };
}

async function committedCount(seen: readonly AnyEvent[], count: number, repo: DaemonRepo): Promise<void> {
  await waitFor(() => seen.filter((event) => event.name === 'handoff.committed').length >= count, {
    timeoutMs: 30_000,
    message: `handoff ${count} to be committed`,
  }).catch(async (error) => {
    console.log(await fs.readFile(path.join(repo.root, '.ai-zen/logs/daemon.log'), 'utf8'));
    throw error;
  });
}

const section = (doc: string, marker: string) => (doc.split(`\n## ${marker}`)[1] ?? '').split('\n## ')[0]!;

/** The 🔔 commands, as the successor would copy them. */
function firstSteps(doc: string): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(section(doc, '🔔'))?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '');
}

/** Runs a first step from the repo root; `ai-zen-daemon` is this build's. */
async function runStep(repo: DaemonRepo, command: string): Promise<{ code: number | null; stdout: string }> {
  if (command.startsWith('ai-zen-daemon ')) {
    const result = await repo.daemon(command.split(' ').slice(1));
    return { code: result.code, stdout: result.stdout };
  }
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: repo.root, env: { ...process.env, ...repo.env } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout }));
  });
}

describe('documents a successor can trust, with the real Claude Code client', () => {
  test('a Claude session with a 200 KB transcript line: bounded first steps (the read-back under 16 KB), no machine path, checked ✓ in handoffs, status and the notification; its successor is linked to it and carries its rule', async () => {
    const { daemon, claude, seen } = await setup();
    const target = path.join(daemon.root, 'src', 'parser.ts');
    fake.enqueue(
      anthropicReply()
        .text('Rewriting the parser.')
        .tool('Write', { file_path: target, content: `export const parse = 1;\n${'// generated table\n'.repeat(12_000)}` })
        .usage({ input_tokens: 30_000, output_tokens: 50 }),
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 60_000, output_tokens: 20 }),
      anthropicReply().text('The parser is fixed.').usage({ input_tokens: 150_000, output_tokens: 30 }),
    );
    const first = await runClaude(`Fix the parser in ${target}. Never add dependencies.`, {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
    });
    expect(first.code, first.stderr).toBe(0);
    const [transcript] = await claudeTranscripts(claude);
    expect((await fs.stat(transcript!)).size).toBeGreaterThan(200_000);
    await committedCount(seen, 1, daemon);
    const [doc1] = await handoffDocs(daemon.root);
    const text = await fs.readFile(path.join(daemon.root, doc1!), 'utf8');
    const firstId = path.basename(transcript!, '.jsonl');

    // §2: the project's paths relative, nothing of this machine (the root, the home, the transcript).
    expect(text).not.toContain(daemon.root);
    expect(text).not.toContain(claude.home);
    expect(text).not.toContain(transcript);
    expect(text).toContain('`src/parser.ts` — write');
    expect(text).toContain('> Fix the parser in src/parser.ts. Never add dependencies.');
    const status = await daemon.status();
    expect(status.sessions.find((session) => session.id === firstId)?.transcript).toBe(transcript);

    // §1: every first step runs as written and prints at most 16 KB; the read-back has the turns, not the 200 KB line.
    const steps = firstSteps(text);
    expect(steps).toHaveLength(3);
    expect(steps.join('\n')).not.toMatch(/tail|cat /);
    for (const step of steps) {
      const result = await runStep(daemon, step);
      expect(result.code, step).toBe(0);
      expect(Buffer.byteLength(result.stdout), step).toBeLessThanOrEqual(16 * 1024);
    }
    const readBack = (await runStep(daemon, steps.find((step) => step.startsWith('ai-zen-daemon transcript'))!)).stdout;
    expect(readBack).toContain(`session ${firstId} (claude-code)`);
    expect(readBack).toContain('Never add dependencies.');
    expect(readBack).toContain('The parser is fixed.');
    expect(readBack).toContain('[tools: write');
    expect(readBack).not.toContain('// generated table\n// generated table\n// generated table');
    const bad = await daemon.daemon(['transcript', 'zzzz']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('no session of this repo has an id or short id starting with zzzz');

    // §3: the verdict, where a person looks.
    const passed = { sections: [], facts: [], files: [], commands: [] };
    expect(seen.find((event) => event.name === 'handoff.written')?.payload).toMatchObject({ agent: 'claude-code', checks: passed });
    expect((await daemon.status()).handoffs.at(-1)).toMatchObject({ path: doc1, checks: passed });
    expect((await daemon.daemon(['handoffs'])).stdout).toContain('checked ✓');
    expect((await daemon.daemon(['status'])).stdout).toContain('checked ✓');
    await waitFor(async () => (await service!.received()).some((call) => call.body.includes(doc1!) && call.body.includes('— checked ✓')), {
      timeoutMs: 20_000,
      message: 'the notification with its verdict',
    });

    // §4: the successor, started with the announced command, is linked to its predecessor and keeps its rule.
    const command = (seen.find((event) => event.name === 'handoff.written')!.payload as { successorCommand: string }).successorCommand;
    const prompt = /^claude "((?:[^"\\]|\\.)*)"$/.exec(command)![1]!.replace(/\\(["$`\\])/g, '$1');
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 20_000, output_tokens: 10 }),
      anthropicReply().text('Continued: the parser tests pass.').usage({ input_tokens: 150_000, output_tokens: 30 }),
    );
    const successor = await runClaude(prompt, { cwd: daemon.root, home: claude, baseURL: fake.baseURL });
    expect(successor.code, successor.stderr).toBe(0);
    await committedCount(seen, 2, daemon);
    const doc2 = (await handoffDocs(daemon.root)).find((doc) => doc !== doc1)!;
    const text2 = await fs.readFile(path.join(daemon.root, doc2), 'utf8');
    expect(section(text2, '🎯')).toContain(`This session continued the work of the previous handoff document \`${doc1}\``);
    expect(section(text2, '🎯')).not.toContain("(the previous session's record)");
    const rules = section(text2, '⚠️');
    expect(rules).toContain(`Carried from the previous handoff document \`${doc1}\``);
    expect(rules).toContain('> Never add dependencies.');
    expect(seen.filter((event) => event.name === 'handoff.written').at(-1)?.payload).toMatchObject({ checks: passed });

    const successorId = path.basename((await claudeTranscripts(claude)).find((file) => file !== transcript)!, '.jsonl');
    const sessions = SessionsReply.parse(JSON.parse((await daemon.daemon(['sessions', '--json'])).stdout)).sessions;
    expect(sessions.find((session) => session.id === successorId)?.previous).toEqual({ path: doc1, sessionId: firstId });
    expect(sessions.find((session) => session.id === firstId)?.previous ?? null).toBeNull();
    expect((await daemon.daemon(['sessions'])).stdout).toContain(`continues ${shortId(firstId)} from ${doc1}`);
  }, 180_000);

  test('a self document whose ⚠️ drops the user’s rule gets one corrective Stop reason naming it; the corrected document is adopted, checked ✓', async () => {
    const { daemon, claude, seen } = await setup();
    expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
    const documentWith = (rules: string) =>
      `# Handoff\n\n${HANDOFF_SECTIONS.map((heading) => `## ${heading}\n\n${heading.includes('⚠️') ? rules : 'The user asked to fix the parser; it is fixed.'}\n`).join('\n')}`;
    let target = '';
    let correction = '';
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 20_000, output_tokens: 10 }),
      anthropicReply().text('The parser is fixed.').usage({ input_tokens: 146_000, output_tokens: 10 }),
      (request) =>
        anthropicReply()
          .tool('Read', { file_path: briefNamedIn(request.allText) })
          .usage({ input_tokens: 146_500, output_tokens: 20 }),
      (request) => {
        target = /write the handoff document with your Write tool to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        return anthropicReply()
          .tool('Write', { file_path: target, content: documentWith('None stated.') })
          .usage({ input_tokens: 147_000, output_tokens: 400 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 148_000, output_tokens: 10 }),
      (request) => {
        correction = request.lastUserText;
        return anthropicReply()
          .tool('Write', { file_path: target, content: documentWith('- Never add dependencies.') })
          .usage({ input_tokens: 149_000, output_tokens: 400 });
      },
      anthropicReply().text('Corrected.').usage({ input_tokens: 150_000, output_tokens: 10 }),
    );
    // A person at the terminal: a script's run (`claude -p`) keeps its answer and is never asked.
    await using terminal = await startInteractiveClaude('Fix the parser. Never add dependencies.', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--allowedTools', 'Bash'],
      env: daemon.env,
    });
    await terminal.waitForScreen(/Corrected\./, { timeoutMs: 90_000 });
    expect(correction).toContain('does not pass ai-zen');
    expect(correction).toContain(`does not carry the user's rule "Never add dependencies."`);
    await committedCount(seen, 1, daemon);
    const written = seen.filter((event) => event.name === 'handoff.written');
    expect(written).toHaveLength(1);
    expect(written[0]!.payload).toMatchObject({ executor: 'self', checks: { sections: [], facts: [], files: [], commands: [] } });
    const [doc] = await handoffDocs(daemon.root);
    expect(section(await fs.readFile(path.join(daemon.root, doc!), 'utf8'), '⚠️')).toContain('Never add dependencies.');
    expect((await daemon.daemon(['handoffs'])).stdout).toContain('checked ✓');
  }, 180_000);
  test('F2 a self document is checked against the facts it was given: another session’s handoff committed while the agent writes (HEAD moved on) does not fail it', async () => {
    const { daemon, claude, seen } = await setup();
    expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
    let given = '';
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 20_000, output_tokens: 10 }),
      anthropicReply().text('The parser is fixed.').usage({ input_tokens: 146_000, output_tokens: 10 }),
      (request) =>
        anthropicReply()
          .tool('Read', { file_path: briefNamedIn(request.allText) })
          .usage({ input_tokens: 146_500, output_tokens: 20 }),
      (request) => {
        const target =
          /write the handoff document with your Write tool to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        given = /- Commit: `([0-9a-f]{7,40})`/.exec(request.allText)?.[1] ?? 'missing';
        // Another session's handoff lands while this agent writes its own: HEAD moves past the facts it was given.
        execFileSync(
          'git',
          [
            '-c',
            'user.name=other',
            '-c',
            'user.email=other@example.com',
            'commit',
            '-q',
            '--allow-empty',
            '-m',
            'handoff: another session',
          ],
          {
            cwd: daemon.root,
          },
        );
        const document = `# Handoff\n\n${HANDOFF_SECTIONS.map((heading, index) => `## ${heading}\n\n${index === 2 ? `- Commit: \`${given}\`\n- The parser is fixed.` : 'The user asked to fix the parser; it is fixed. Never add dependencies.'}\n`).join('\n')}`;
        return anthropicReply()
          .tool('Write', { file_path: target, content: document })
          .usage({ input_tokens: 147_000, output_tokens: 400 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 148_000, output_tokens: 10 }),
    );
    await using terminal = await startInteractiveClaude('Fix the parser. Never add dependencies.', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--allowedTools', 'Bash'],
      env: daemon.env,
    });
    await terminal.waitForScreen(/Handoff written\./, { timeoutMs: 90_000 });
    await committedCount(seen, 1, daemon);
    expect(given).toMatch(/^[0-9a-f]{7,40}$/);
    const head = execFileSync('git', ['log', '-3', '--format=%H %s'], { cwd: daemon.root, encoding: 'utf8' });
    expect(head).toContain('handoff: another session');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: daemon.root, encoding: 'utf8' }).startsWith(given)).toBe(false);
    const written = seen.filter((event) => event.name === 'handoff.written');
    expect(written).toHaveLength(1);
    expect(written[0]!.payload).toMatchObject({ executor: 'self', checks: { sections: [], facts: [], files: [], commands: [] } });
  }, 180_000);
  test('a self document still failing after its one correction: the daemon writes its own (offline), recorded as a downgrade from self, checked ✓', async () => {
    const { daemon, claude, seen } = await setup();
    expect((await daemon.daemon(['install-hooks', 'claude'])).code).toBe(0);
    const careless = `# Handoff\n\n${HANDOFF_SECTIONS.map((heading) => `## ${heading}\n\n${heading.includes('⚠️') ? 'None stated.' : 'The parser is fixed.'}\n`).join('\n')}`;
    let target = '';
    const corrections: string[] = [];
    fake.enqueue(
      anthropicReply().tool('Bash', { command: 'true' }).usage({ input_tokens: 20_000, output_tokens: 10 }),
      anthropicReply().text('The parser is fixed.').usage({ input_tokens: 146_000, output_tokens: 10 }),
      (request) =>
        anthropicReply()
          .tool('Read', { file_path: briefNamedIn(request.allText) })
          .usage({ input_tokens: 146_500, output_tokens: 20 }),
      (request) => {
        target = /write the handoff document with your Write tool to exactly this path: (\S+\.md)/.exec(request.allText)?.[1] ?? 'missing';
        return anthropicReply()
          .tool('Write', { file_path: target, content: careless })
          .usage({ input_tokens: 147_000, output_tokens: 400 });
      },
      anthropicReply().text('Handoff written.').usage({ input_tokens: 148_000, output_tokens: 10 }),
      (request) => {
        corrections.push(request.lastUserText);
        return anthropicReply().text('It is fine as it is.').usage({ input_tokens: 149_000, output_tokens: 10 });
      },
    );
    // A person at the terminal: a script's run (`claude -p`) keeps its answer and is never asked.
    await using terminal = await startInteractiveClaude('Fix the parser. Never add dependencies.', {
      cwd: daemon.root,
      home: claude,
      baseURL: fake.baseURL,
      args: ['--allowedTools', 'Bash'],
      env: daemon.env,
    });
    await terminal.waitForScreen(/It is fine as it is\./, { timeoutMs: 90_000 });
    expect(corrections).toHaveLength(1);
    expect(corrections[0]).toContain(`does not carry the user's rule "Never add dependencies."`);
    await committedCount(seen, 1, daemon);
    const written = seen.filter((event) => event.name === 'handoff.written');
    expect(written).toHaveLength(1);
    expect(written[0]!.payload).toMatchObject({ executor: 'offline', checks: { sections: [], facts: [], files: [], commands: [] } });
    const handoff = (await daemon.status()).handoffs.at(-1)!;
    expect(handoff.downgrades).toEqual([{ from: 'self', reason: "the agent's document still failed the checks after one correction" }]);
    expect(section(await fs.readFile(path.join(daemon.root, handoff.path), 'utf8'), '⚠️')).toContain('Never add dependencies.');
    // The refused document is set aside, out of handoffs/ and out of git: the repo is clean for a `git add -A`.
    const refused = path.basename(target);
    expect(await fs.readdir(path.join(daemon.root, '.ai-zen', 'handoffs'))).toEqual([path.basename(handoff.path)]);
    expect(await fs.readFile(path.join(daemon.root, '.ai-zen', 'rejected', refused), 'utf8')).toBe(careless);
    // (the test's own .ai-zen/config.json is the user's file, untracked as the user left it)
    const untracked = (await daemon.repo.git('status', '--porcelain', '--untracked-files=all', '.ai-zen')).trim().split('\n');
    expect(untracked.filter((line) => line !== '?? .ai-zen/config.json')).toEqual([]);
  }, 180_000);
});
