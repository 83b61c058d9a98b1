// The idle handoff's runner with an injected clock and timers the test fires: Claude Code's real
// source reads a transcript the real client wrote (bench/fixtures/transcripts/claude-code), the
// offline document goes through the shared pipeline into a temp project, and what was done is kept
// in the handoff records, so a restarted daemon knows the stretch was handed off and its person told.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { estimateTokens } from '../../src/agent/estimate-tokens.js';
import { resolveAgentsConfig } from '../../src/config/agents-config.js';
import { createForeignRecords } from '../../src/daemon/handoffs/foreign-records.js';
import { createForeignSessions, type Timers } from '../../src/daemon/handoffs/foreign-sessions.js';
import { claudeAgent } from '../../src/daemon/sources/claude-code/claude-agent.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import type { SessionState } from '../../src/daemon/watching/session-source.js';
import { EventBus, type EventPayload } from '../../src/events.js';
import { projectPaths } from '../../src/paths.js';
import { cleanFacts } from '../support/clean-facts.js';
import { memoryLogger } from '../support/memory-logger.js';
import { standInCommitter } from '../support/stand-in-committer.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fixtures', 'transcripts', 'claude-code');

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-idle-runner-')));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function handTimers() {
  const armed: { run: () => void; ms: number; cleared: boolean }[] = [];
  const timers: Timers = {
    set: (run, ms) => {
      // A timer that ran is spent, as one cleared is.
      const timer = {
        run: () => {
          timer.cleared = true;
          run();
        },
        ms,
        cleared: false,
      };
      armed.push(timer);
      return timer;
    },
    clear: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
  return { timers, live: () => armed.filter((timer) => !timer.cleared) };
}

test('a recorded session idle 45 minutes with a 1-hour cache: one idle document, kept across a restart, its transcript untouched', async () => {
  const home = path.join(root, '.claude');
  const folder = path.join(home, 'projects', claudeSlug(root));
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, 'e1532bb0-cea3-4a4c-b521-e93dd0bca447.jsonl');
  const text = (await fs.readFile(path.join(FIXTURE, 'http-server.jsonl'), 'utf8')).replaceAll('{{ROOT}}', root);
  await fs.writeFile(file, text);
  const before = createHash('sha256').update(text).digest('hex');
  // The recorded client got no cache_creation from the fake server: the setting says 1 hour.
  const config = resolveAgentsConfig(undefined, { 'claude-code': { idleHandoff: { enabled: true, minTokens: 15_000, cacheMinutes: 60 } } });
  const source = claudeAgent.createSource({ root, env: { CLAUDE_CONFIG_DIR: home }, config: config['claude-code'] });
  const state: SessionState = (await source.createReader(file).update()).state;
  const replyAt = Date.parse(state.turn!.lastReplyAt!);
  const env = { AI_ZEN_HOME: path.join(root, '.home') };
  const records = createForeignRecords({ root, env, logger: memoryLogger().logger });

  const start = (clock: { now: number }) => {
    const events = new EventBus();
    const hand = handTimers();
    const runner = createForeignSessions({
      root,
      paths: projectPaths(root),
      env,
      events,
      committer: standInCommitter(),
      facts: { capture: async () => cleanFacts(root) },
      sources: [source],
      logger: memoryLogger().logger,
      stateOf: (candidate) => (candidate === file ? state : null),
      notice: () => {},
      termsFor: () => ({ graceMs: 0, selfDeadlineMs: 1000, idle: config['claude-code'].idleHandoff }),
      now: () => new Date(clock.now),
      timers: hand.timers,
      records,
    });
    return { runner, events, ...hand };
  };

  const clock = { now: replyAt + 60_000 };
  const first = start(clock);
  first.runner.seen!(state);
  expect(first.live().map((timer) => timer.ms)).toEqual([44 * 60_000]);
  expect(first.runner.idleOf(file)?.plan).toMatchObject({ state: 'waiting', at: replyAt + 45 * 60_000, cacheMinutes: 60 });

  const written = new Promise<EventPayload<'handoff.written'>>((resolve) => first.events.on('handoff.written', resolve));
  clock.now = replyAt + 45 * 60_000;
  first.live()[0]!.run();
  const document = await written;
  expect(document).toMatchObject({ agent: 'claude-code', executor: 'offline', trigger: 'idle' });
  const documentText = await fs.readFile(path.join(root, document.path), 'utf8');
  expect(documentText).toContain('/health');
  // What the person who comes back is told: fresh from the document, or the whole context re-written at Opus 5.5's 1-hour write price.
  const resumeTokens = state.latestUsage!.prompt_tokens;
  const onReturn = {
    freshTokens: state.firstReadingTokens! + estimateTokens(documentText),
    resumeTokens,
    resumeDollars: (resumeTokens * 8) / 1_000_000,
  };
  expect(document.idleReturn).toEqual(onReturn);
  await expect.poll(() => first.runner.idleOf(file)?.handedOffAt).toBe(clock.now);
  expect(first.runner.idleOf(file)?.choice).toEqual({ document: document.path, ...onReturn });
  // The person's next prompt is told once in the stretch; a second prompt in it (the first interrupted) is not.
  expect(first.runner.takeIdleReturn(file)).toEqual({ document: document.path, ...onReturn });
  expect(first.runner.takeIdleReturn(file)).toBeNull();
  // The same stretch read again: no timer, no second document.
  first.runner.seen!(state);
  expect(first.live()).toEqual([]);
  first.runner.close();

  // A restart while the stretch goes on: the records say it was handed off, and when.
  clock.now += 60_000;
  const second = start(clock);
  await second.runner.restore();
  second.runner.seen!(state);
  expect(second.live()).toEqual([]);
  expect(second.runner.idleOf(file)).toMatchObject({ handedOffAt: replyAt + 45 * 60_000, document: document.path });
  expect(second.runner.idleOf(file)?.choice).toEqual({ document: document.path, ...onReturn });
  // The person was told before the restart: not again in the same stretch.
  expect(second.runner.takeIdleReturn(file)).toBeNull();
  expect(second.runner.actionFor(file)).toMatch(
    new RegExp(`^handed off while idle \\d\\d:\\d\\d: ${document.path.replaceAll('.', '\\.')}$`),
  );
  second.runner.close();
  expect(
    createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex'),
  ).toBe(before);
});
