// `npm run bench:record`: records the transcripts the fidelity benchmark cuts. The REAL
// Claude Code and Codex clients (test/support/agent-clients.ts installs them) are driven offline by
// a scripted fake model (fake-anthropic.ts, fake-responses.ts) through the coding sessions of
// session-plans.ts, in temp git repos, and the transcripts they wrote are copied, sanitised, to
// bench/fixtures/transcripts/<agent>/<plan>.jsonl. The benchmark then needs neither the network nor
// the clients.
//
// A vitest file, not a bench/ script: it needs the fakes and the client installer of test/support,
// which bench/ may not import (bench/ sees only ../dist/ and itself). It is not a test (it writes
// committed fixtures and takes minutes), so vitest.record.config.ts runs it and the default run,
// whose include is test/**/*.test.ts, never does.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { claudeTranscripts, makeClaudeHome, runClaude } from '../support/claude-client.js';
import { codexExec, listRollouts, makeCodexHome, runCodex } from '../support/codex-client.js';
import { anthropicReply, startFakeAnthropic } from '../support/fake-anthropic.js';
import { responsesReply, startFakeResponses } from '../support/fake-responses.js';
import { PLANS, stepCount, type PlanStep, type SessionPlan } from './session-plans.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fixtures', 'transcripts');
/** What the bench substitutes back (bench/next-actions-bench.ts). */
const ROOT_MARK = '{{ROOT}}';
const HOME_MARK = '{{HOME}}';
const TEMP_MARK = '{{TMP}}';
/** Claude names its project folder after the repo path, every non-alphanumeric character a dash. */
const ROOT_SLUG_MARK = '{{ROOT_SLUG}}';

async function makeRepo(plan: SessionPlan): Promise<{ base: string; root: string }> {
  const name = plan.name;
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `zen-rec-${name}-`)));
  const root = path.join(base, 'repo');
  await fs.mkdir(root);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Recorder');
  git('config', 'user.email', 'recorder@example.invalid');
  for (const [file, content] of Object.entries(plan.seed ?? {})) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), content);
  }
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', plan.seed ? 'the project as it was' : 'empty start');
  return { base, root };
}

/** The recorded transcript without this machine: its repo, home and temp folders become placeholders. */
function sanitise(text: string, places: { root: string; home: string; base: string }): string {
  const replaced = text
    .split(places.root.replace(/[^A-Za-z0-9]/g, '-'))
    .join(ROOT_SLUG_MARK)
    .split(places.root)
    .join(ROOT_MARK)
    .split(places.home)
    .join(HOME_MARK)
    .split(places.base)
    .join(TEMP_MARK)
    .split(os.tmpdir())
    .join(TEMP_MARK);
  const leftover = /\/(home|root|Users)\/[^"\s]+/.exec(replaced);
  if (leftover) throw new Error(`a machine path is left in the transcript: ${leftover[0]}`);
  return replaced;
}

/** Edits by whole lines (apply_patch's hunks are lines): the lines that hold `old`, and what they become. */
function lineEdit(content: string, old: string, replacement: string): { before: string[]; after: string[] } {
  const at = content.indexOf(old);
  if (at < 0) throw new Error(`plan error: ${JSON.stringify(old)} is not in the file`);
  const start = content.lastIndexOf('\n', at - 1) + 1;
  const endAt = content.indexOf('\n', at + old.length - (old.endsWith('\n') ? 1 : 0));
  const end = endAt < 0 ? content.length : endAt;
  const beforeText = content.slice(start, end);
  const afterText = content.slice(start, at) + replacement + content.slice(at + old.length, end);
  const lines = (text: string) => text.split('\n');
  return { before: lines(beforeText), after: lines(afterText.endsWith('\n') ? afterText.slice(0, -1) : afterText) };
}

function codexPatch(step: PlanStep, files: Map<string, string>): string {
  if (step.kind === 'write') {
    const body = step.content
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `+${line}`);
    return ['*** Begin Patch', `*** Add File: ${step.path}`, ...body, '*** End Patch', ''].join('\n');
  }
  if (step.kind !== 'edit') throw new Error('not a patch');
  const { before, after } = lineEdit(files.get(step.path) ?? '', step.old, step.new);
  return [
    '*** Begin Patch',
    `*** Update File: ${step.path}`,
    '@@',
    ...before.map((line) => `-${line}`),
    ...after.map((line) => `+${line}`),
    '*** End Patch',
    '',
  ].join('\n');
}

function apply(step: PlanStep, files: Map<string, string>): void {
  if (step.kind === 'write') files.set(step.path, step.content);
  if (step.kind === 'edit') files.set(step.path, (files.get(step.path) ?? '').replace(step.old, step.new));
}

async function recordClaude(plan: SessionPlan): Promise<void> {
  const { base, root } = await makeRepo(plan);
  const fake = await startFakeAnthropic();
  try {
    const home = await makeClaudeHome(base);
    for (const [index, turn] of plan.turns.entries()) {
      for (const step of turn.steps) {
        const reply = anthropicReply().usage({ input_tokens: 20_000, output_tokens: 200 });
        const file = step.kind === 'run' ? '' : path.join(root, step.path);
        if (step.kind === 'write') reply.tool('Write', { file_path: file, content: step.content });
        if (step.kind === 'edit') reply.tool('Edit', { file_path: file, old_string: step.old, new_string: step.new });
        if (step.kind === 'read') reply.tool('Read', { file_path: file });
        if (step.kind === 'run') reply.tool('Bash', { command: step.command, description: 'Run a step of the plan' });
        fake.enqueue(reply);
      }
      fake.enqueue(anthropicReply().text(turn.final).usage({ input_tokens: 20_000, output_tokens: 50 }));
      const result = await runClaude(turn.request, {
        cwd: root,
        home,
        baseURL: fake.baseURL,
        allowedTools: ['Bash', 'Write', 'Edit', 'Read'],
        args: index === 0 ? [] : ['--continue'],
        timeoutMs: 180_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(fake.pending(), `Claude left scripted replies of "${turn.request}" unused`).toBe(0);
    }
    const transcripts = await claudeTranscripts(home);
    expect(transcripts).toHaveLength(1);
    const text = await fs.readFile(transcripts[0]!, 'utf8');
    await save('claude-code', plan, sanitise(slim('claude-code', text), { root, home: home.home, base }));
  } finally {
    await fake.close();
    await fs.rm(base, { recursive: true, force: true });
  }
}

async function recordCodex(plan: SessionPlan): Promise<void> {
  const { base, root } = await makeRepo(plan);
  const fake = await startFakeResponses();
  try {
    const home = await makeCodexHome(base, { baseURL: fake.baseURL });
    const files = new Map<string, string>(Object.entries(plan.seed ?? {}));
    for (const [index, turn] of plan.turns.entries()) {
      for (const step of turn.steps) {
        const reply = responsesReply().usage({ input_tokens: 20_000, output_tokens: 200 });
        if (step.kind === 'run') reply.exec(step.command);
        else if (step.kind === 'read') reply.exec(`cat ${step.path}`);
        else reply.applyPatch(codexPatch(step, files));
        apply(step, files);
        fake.enqueue(reply);
      }
      fake.enqueue(responsesReply().text(turn.final).usage({ input_tokens: 20_000, output_tokens: 50 }));
      const result =
        index === 0
          ? await codexExec(turn.request, { cwd: root, home, timeoutMs: 180_000 })
          : await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', turn.request], { cwd: root, home, timeoutMs: 180_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(fake.pending(), `Codex left scripted replies of "${turn.request}" unused`).toBe(0);
    }
    const rollouts = await listRollouts(home);
    expect(rollouts).toHaveLength(1);
    const text = await fs.readFile(rollouts[0]!, 'utf8');
    await save('codex', plan, sanitise(slim('codex', text), { root, home: home.home, base }));
  } finally {
    await fake.close();
    await fs.rm(base, { recursive: true, force: true });
  }
}

/** Line types each evidence reader reads: every other line is kept, with its long texts cut. */
const READ_TYPES: Record<string, ReadonlySet<string>> = {
  'claude-code': new Set(['user', 'assistant']),
  codex: new Set(['event_msg']),
};
/** Longer texts in lines no reader reads are the client's own prompts, tool schemas and request shapes. */
const MAX_UNREAD_TEXT = 500;

/**
 * The transcript as committed: whole, but the texts of lines the evidence reader never reads (the
 * client's system prompt, skill listings, request shapes: tens of KB per session, the same in every
 * one) are cut to a marker, so the fixtures stay small. What the readers read is left as written.
 */
function slim(agent: 'claude-code' | 'codex', text: string): string {
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length > MAX_UNREAD_TEXT ? `(${value.length} characters cut by the recorder)` : value;
    if (Array.isArray(value)) return value.map(cut);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cut(inner)]));
    return value;
  };
  return text
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      const parsed = JSON.parse(line) as { type?: unknown };
      return READ_TYPES[agent]!.has(String(parsed.type)) ? line : JSON.stringify(cut(parsed));
    })
    .join('\n');
}

async function save(agent: string, plan: SessionPlan, text: string): Promise<void> {
  await fs.mkdir(path.join(FIXTURES, agent), { recursive: true });
  await fs.writeFile(path.join(FIXTURES, agent, `${plan.name}.jsonl`), text);
}

for (const plan of PLANS) {
  it(`records ${plan.name} (${stepCount(plan)} steps) with the real Claude Code`, { timeout: 900_000 }, () => recordClaude(plan));
  it(`records ${plan.name} (${stepCount(plan)} steps) with the real Codex`, { timeout: 900_000 }, () => recordCodex(plan));
}
