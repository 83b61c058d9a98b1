// The runner of another agent's crossing with its real parts — the shared handoff pipeline, the
// offline executor, the seal, real files in a temp project — but an agent source made here and
// timers a test fires by hand: each agent's own deadline, and what the user gets when it passes.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { resolveAgentsConfig } from '../../src/config/agents-config.js';
import { createForeignRecords } from '../../src/daemon/handoffs/foreign-records.js';
import { createForeignSessions, type Timers } from '../../src/daemon/handoffs/foreign-sessions.js';
import { emptyAgentState, type SessionSource, type SessionState } from '../../src/daemon/watching/session-source.js';
import { EventBus, type AnyEvent, type EventPayload } from '../../src/events.js';
import { projectPaths } from '../../src/paths.js';
import { writeHandoffBrief } from '../../src/daemon/handoffs/handoff-brief.js';
import { waitFor } from '../support/wait-for.js';
import { cleanFacts } from '../support/clean-facts.js';
import { memoryLogger } from '../support/memory-logger.js';
import { standInCommitter } from '../support/stand-in-committer.js';

/** Timers that run only when the test says so. */
function handTimers() {
  const armed: { run: () => void; ms: number; cleared: boolean }[] = [];
  const timers: Timers = {
    set: (run, ms) => {
      const timer = { run, ms, cleared: false };
      armed.push(timer);
      return timer;
    },
    clear: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
  return { timers, live: () => armed.filter((timer) => !timer.cleared) };
}

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-runner-')));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function agentSource(kind: 'gemini' | 'claude-code', label: string): SessionSource {
  return {
    id: kind,
    kind,
    label,
    matches: (file) => file.includes(`/${kind}/`),
    createReader: () => {
      throw new Error('the runner never reads a transcript itself');
    },
    handoff: {
      readEvidence: async () => ({
        messages: [
          { message: { role: 'user', content: 'Add the parser to src/parse.ts. Never touch package-lock.json.' } },
          { message: { role: 'assistant', content: 'The parser is in; its tests pass.' } },
        ],
        earlier: null,
      }),
      successorCommand: (document) => `${kind} "Read ${document}"`,
      selfHooksInstalled: async () => true,
      editTools: 'write_file or replace',
    },
  };
}

function overThreshold(kind: 'gemini' | 'claude-code'): SessionState {
  const state = emptyAgentState({
    kind,
    file: `/transcripts/${kind}/session.jsonl`,
    sessionId: kind === 'gemini' ? '1a2b3c4d-0000-4000-8000-000000000000' : '5e6f7a8b-0000-4000-8000-000000000000',
    window: 1_000_000,
    thresholds: { handoffAt: 80, warnAt: 70, compactsAt: null },
    details: {},
  });
  return { ...state, latestUsage: { prompt_tokens: 850_000, completion_tokens: 10, total_tokens: 850_010 } };
}

describe('the crossing runner', () => {
  test("each agent's session waits for its own self deadline (Gemini 30 s, Claude Code 180 s); when Gemini's passes, the offline document is written and recorded as a downgrade from self", async () => {
    const NOW = Date.now();
    const config = resolveAgentsConfig(undefined, {
      gemini: { selfDeadlineSeconds: 30, graceSeconds: 0 },
      'claude-code': { graceSeconds: 0 },
    });
    const { timers, live } = handTimers();
    const events = new EventBus();
    const seen: AnyEvent[] = [];
    events.onAny((event) => seen.push(event));
    const states = new Map([overThreshold('gemini'), overThreshold('claude-code')].map((state) => [state.file, state]));
    const runner = createForeignSessions({
      root,
      paths: projectPaths(root),
      env: { AI_ZEN_HOME: path.join(root, '.home') },
      events,
      committer: standInCommitter(),
      facts: { capture: async () => cleanFacts(root) },
      sources: [agentSource('gemini', 'Gemini CLI'), agentSource('claude-code', 'Claude Code')],
      logger: memoryLogger().logger,
      stateOf: (file) => states.get(file) ?? null,
      notice: () => {},
      termsFor: (agent) =>
        agent === 'gemini' || agent === 'claude-code'
          ? { graceMs: config[agent].graceSeconds * 1000, selfDeadlineMs: config[agent].selfDeadlineSeconds * 1000 }
          : undefined,
      timers,
      // One instant: each deadline is armed for exactly its length, however long the settling takes.
      now: () => new Date(NOW),
      records: createForeignRecords({ root, env: { AI_ZEN_HOME: path.join(root, '.home') }, logger: memoryLogger().logger }),
    });
    for (const state of states.values()) await runner.settle(state.file);
    expect(
      live()
        .map((timer) => timer.ms)
        .sort((a, b) => a - b),
    ).toEqual([30_000, 180_000]);
    expect(runner.actionFor('/transcripts/gemini/session.jsonl')).toBe(
      'waiting for Gemini CLI to stop and write the document itself (self)',
    );

    const writing = new Promise<EventPayload<'handoff.written'>>((resolve) => events.on('handoff.written', resolve));
    live()
      .find((timer) => timer.ms === 30_000)!
      .run();
    const written = await writing;
    expect(written).toMatchObject({
      agent: 'gemini',
      executor: 'offline',
      successorCommand: expect.stringMatching(/^gemini "Read \.ai-zen\/handoffs\/.+\.md"$/),
    });
    expect(seen.filter((event) => event.name === 'handoff.downgraded').map((event) => event.payload)).toEqual([
      expect.objectContaining({ from: 'self', to: 'offline', reason: 'the Stop hook did not take the handoff in time' }),
    ]);
    const document = await fs.readFile(path.join(root, written.path), 'utf8');
    expect(document).toContain('Never touch package-lock.json.');
    expect(runner.hasDocument('/transcripts/gemini/session.jsonl')).toBe(true);
    expect(runner.hasDocument('/transcripts/claude-code/session.jsonl')).toBe(false);
    expect(runner.actionFor('/transcripts/claude-code/session.jsonl')).toBe(
      'waiting for Claude Code to stop and write the document itself (self)',
    );
    runner.close();
  });
});

describe('a session read by the start-up listing', () => {
  function runnerAt(now: number, state: SessionState) {
    const runner = createForeignSessions({
      root,
      paths: projectPaths(root),
      env: { AI_ZEN_HOME: path.join(root, '.home') },
      events: new EventBus(),
      committer: standInCommitter(),
      facts: { capture: async () => cleanFacts(root) },
      sources: [agentSource('claude-code', 'Claude Code')],
      logger: memoryLogger().logger,
      stateOf: (file) => (file === state.file ? state : null),
      notice: () => {},
      termsFor: () => ({ graceMs: 40_000, selfDeadlineMs: 180_000 }),
      timers: handTimers().timers,
      now: () => new Date(now),
      records: createForeignRecords({ root, env: { AI_ZEN_HOME: path.join(root, '.home') }, logger: memoryLogger().logger }),
    });
    return runner;
  }

  test('one that started after the daemon is news: it waits out its grace window, not for growth as an old session would', async () => {
    const NOW = Date.now();
    const born = { ...overThreshold('claude-code'), startedAt: new Date(NOW + 1_000).toISOString() };
    const runner = runnerAt(NOW, born);
    // The listing at start-up reads it (`initial`), after the daemon answered and the session began.
    runner.crossed(born, { initial: true });
    await runner.settle(born.file);
    expect(runner.actionFor(born.file)).toBe('started less than 40 seconds ago: waiting');
    runner.close();
  });

  test('one that started before the daemon, first read over its threshold, is old news: it hands off once it grows', async () => {
    const NOW = Date.now();
    const old = { ...overThreshold('claude-code'), startedAt: new Date(NOW - 3_600_000).toISOString() };
    const runner = runnerAt(NOW, old);
    runner.crossed(old, { initial: true });
    await runner.settle(old.file);
    expect(runner.actionFor(old.file)).toBe('first seen at 85%, already over 80%: hands off once it reaches 95%');
    runner.close();
  });

  test('the brief of an agent’s own handoff is removed once the daemon gives up waiting for the document and writes its own', async () => {
    const NOW = Date.now();
    const { timers, live } = handTimers();
    const events = new EventBus();
    const state = overThreshold('gemini');
    const paths = projectPaths(root);
    const runner = createForeignSessions({
      root,
      paths,
      env: { AI_ZEN_HOME: path.join(root, '.home') },
      events,
      committer: standInCommitter(),
      facts: { capture: async () => cleanFacts(root) },
      sources: [agentSource('gemini', 'Gemini CLI')],
      logger: memoryLogger().logger,
      stateOf: (file) => (file === state.file ? state : null),
      notice: () => {},
      termsFor: () => ({ graceMs: 0, selfDeadlineMs: 30_000 }),
      timers,
      now: () => new Date(NOW),
      records: createForeignRecords({ root, env: { AI_ZEN_HOME: path.join(root, '.home') }, logger: memoryLogger().logger }),
    });
    await runner.settle(state.file);
    // The agent's Stop hook takes the crossing: the brief is written for it, as the hook's answer does.
    expect(await runner.claimForSelf(state.file)).not.toBeNull();
    const brief = await writeHandoffBrief(paths, state.sessionId, 'the skill and the facts');
    expect(await fs.readFile(brief, 'utf8')).toBe('the skill and the facts');

    // The agent never writes it: its deadline passes, the daemon writes the document, and the brief goes.
    const writing = new Promise<EventPayload<'handoff.written'>>((resolve) => events.on('handoff.written', resolve));
    live().at(-1)!.run();
    expect(await writing).toMatchObject({ agent: 'gemini', executor: 'offline' });
    await waitFor(async () => (await fs.lstat(brief).catch(() => null)) === null, { timeoutMs: 10_000, message: 'the brief removed' });
    runner.close();
  });

  test('a restarted daemon removes the briefs an earlier one left, and nothing else in their folder', async () => {
    const paths = projectPaths(root);
    const left = await writeHandoffBrief(paths, '5e6f7a8b-0000-4000-8000-000000000000', 'an earlier claim');
    await fs.writeFile(path.join(paths.briefs, 'notes-the-repo-keeps.md'), 'theirs');
    const runner = createForeignSessions({
      root,
      paths,
      env: { AI_ZEN_HOME: path.join(root, '.home') },
      events: new EventBus(),
      committer: standInCommitter(),
      facts: { capture: async () => cleanFacts(root) },
      sources: [agentSource('claude-code', 'Claude Code')],
      logger: memoryLogger().logger,
      stateOf: () => null,
      notice: () => {},
      records: createForeignRecords({ root, env: { AI_ZEN_HOME: path.join(root, '.home') }, logger: memoryLogger().logger }),
    });
    await runner.restore();
    expect(await fs.lstat(left).catch(() => null)).toBeNull();
    expect(await fs.readFile(path.join(paths.briefs, 'notes-the-repo-keeps.md'), 'utf8')).toBe('theirs');
    runner.close();
  });
});
