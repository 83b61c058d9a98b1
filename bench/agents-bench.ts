// Benchmark (x), X3: another agent's sessions cost what ai-zen's own cost.
// 1. Append → crossing noticed: an assistant line that takes a Claude Code transcript over its
//    handoffAt, against a usage line that takes an ai-zen session over its window — the same
//    TranscriptWatchers → SessionMonitor → EventBus path, in this process, alternating.
// 2. Idle CPU and RSS of a real daemon whose agents' folders hold other repos' sessions (10,000 Claude
//    Code transcripts, a ~500 MB opencode database, 5,000 Cline CLI sessions), against one whose
//    folders are empty: those sessions are never read, so they must cost nothing (agents-idle-figures.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveAgentsConfig } from '../dist/config/agents-config.js';
import { EventBus } from '../dist/events.js';
import { silentLogger } from '../dist/log/logger.js';
import { createHandoffCommitter } from '../dist/daemon/committing/handoff-committer.js';
import { SessionMonitor } from '../dist/daemon/handoffs/session-monitor.js';
import { fixedFolder, type WatchedSource } from '../dist/daemon/watching/session-source.js';
import { createAiZenSessionSource } from '../dist/daemon/watching/session-source-ai-zen.js';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';
import { claudeAgent } from '../dist/daemon/sources/claude-code/claude-agent.js';
import { TranscriptWatchers } from '../dist/daemon/watching/transcript-watchers.js';
import { benchAgentsIdle } from './agents-idle-figures.js';
import { claudeLine } from './claude-transcripts-fixture.js';
import type { Figure, ItemResult } from './results.js';
import { formatMs, pause, pollUntil, summarise } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

export interface AgentsBenchOptions {
  readonly daemonBin: string;
  readonly appends: number;
  readonly otherTranscripts: number;
  readonly opencodeMegabytes: number;
  readonly opencodeSessions: number;
  readonly clineSessions: number;
  readonly steadyAfterSpawnMs: number;
  readonly idleMs: number;
  readonly log: (line: string) => void;
}

const TITLE = '(x) X3: other agents’ sessions cost what ai-zen sessions cost';
const silent = silentLogger();
const SIGNAL_TIMEOUT_MS = 10_000;

const aiZenHeader = (id: string, root: string) =>
  `${JSON.stringify({ type: 'session', v: 1, id, createdAt: new Date().toISOString(), cwd: root, model: 'm', maxContextTokens: 200_000, previousId: null })}\n`;
const aiZenUsage = (tokens: number) =>
  `${JSON.stringify({ type: 'usage', usage: { prompt_tokens: tokens, completion_tokens: 5, total_tokens: tokens + 5 } })}\n`;

interface Subject {
  readonly name: string;
  readonly folder: string;
  readonly source: WatchedSource;
  /** A new session under its threshold; the crossing append. */
  write(index: number): Promise<{ file: string; cross: string }>;
}

async function measureLatency(subject: Subject, appends: number, root: string): Promise<number[]> {
  const events = new EventBus();
  const committer = createHandoffCommitter({ root, enabled: false, events, logger: silent });
  const monitor = new SessionMonitor({
    root,
    events,
    committer,
    migrator: { run: () => Promise.reject(new Error('the benchmark stops at the event')) },
    isOwned: async () => false,
    logger: silent,
  });
  const watchers = new TranscriptWatchers({
    sources: [subject.source],
    logger: silent,
    onUpdate: (update, info) => monitor.handle(update, info),
  });
  let waiting: ((at: number) => void) | null = null;
  events.on('session.overflowed', () => waiting?.(performance.now()));
  await watchers.start();
  const samples: number[] = [];
  try {
    for (let index = 0; index < appends; index += 1) {
      const { file, cross } = await subject.write(index);
      if (!(await pollUntil(() => watchers.state(file)?.latestUsage != null, { timeoutMs: SIGNAL_TIMEOUT_MS, intervalMs: 5 })))
        throw new Error(`${subject.name}: the session was not read`);
      const event = new Promise<number>((resolve) => (waiting = resolve));
      const started = performance.now();
      await fs.appendFile(file, cross);
      const at = await Promise.race([event, pause(SIGNAL_TIMEOUT_MS).then(() => Number.NaN)]);
      if (Number.isNaN(at)) throw new Error(`${subject.name}: no crossing event within ${SIGNAL_TIMEOUT_MS} ms`);
      samples.push(at - started);
    }
  } finally {
    await watchers.close();
    await committer.close();
  }
  return samples;
}

export async function benchAgents(options: AgentsBenchOptions): Promise<ItemResult> {
  const project = await makeBenchProject('agents-latency', { git: false });
  try {
    const root = project.root;
    const configDir = path.join(project.home, 'claude');
    const slugFolder = path.join(configDir, 'projects', claudeSlug(root));
    const sessions = path.join(root, '.ai-zen', 'sessions');
    await fs.mkdir(slugFolder, { recursive: true });
    await fs.mkdir(sessions, { recursive: true });
    // The defaults a user gets (handoffAt 70, the model table), as the daemon resolves them.
    const claudeConfig = resolveAgentsConfig(undefined, undefined)['claude-code'];
    const claude: Subject = {
      name: 'Claude Code transcript',
      folder: slugFolder,
      source: claudeAgent.createSource({ root, env: { CLAUDE_CONFIG_DIR: configDir }, config: claudeConfig }),
      async write(index) {
        const id = `aaaaaaaa-0000-4000-8000-${String(index).padStart(12, '0')}`;
        const file = path.join(slugFolder, `${id}.jsonl`);
        await fs.writeFile(file, claudeLine(root, id, 1, 20_000));
        return { file, cross: claudeLine(root, id, 2, 150_000) };
      },
    };
    const aiZen: Subject = {
      name: 'ai-zen session',
      folder: sessions,
      source: { ...createAiZenSessionSource(), folders: fixedFolder(sessions, true) },
      async write(index) {
        const id = `bbbbbbbb-0000-4000-8000-${String(index).padStart(12, '0')}`;
        const file = path.join(sessions, `${id}.jsonl`);
        await fs.writeFile(file, aiZenHeader(id, root) + aiZenUsage(20_000));
        return { file, cross: aiZenUsage(250_000) };
      },
    };
    options.log(`(x) append → crossing, ${options.appends} appends each`);
    const aiZenSamples = await measureLatency(aiZen, options.appends, root);
    const claudeSamples = await measureLatency(claude, options.appends, root);
    const a = summarise(aiZenSamples);
    const c = summarise(claudeSamples);
    const idle = await benchAgentsIdle(options);
    const figures: Figure[] = [
      {
        name: 'append → session.overflowed, ai-zen session (window)',
        measured: `median ${formatMs(a.median)}, p99 ${formatMs(a.p99)}`,
        target: '—',
        pass: null,
      },
      {
        name: 'append → session.overflowed, Claude Code transcript (handoffAt 70%)',
        measured: `median ${formatMs(c.median)}, p99 ${formatMs(c.p99)} (${(c.median / a.median).toFixed(2)}× ai-zen)`,
        target: '≤ 2× ai-zen (as fast)',
        pass: c.median <= 2 * a.median,
      },
      ...idle.figures,
    ];
    return {
      id: 'x',
      title: TITLE,
      notRun: null,
      figures,
      notes: [
        `Latency: TranscriptWatchers (one SessionWatcher per folder) → SessionMonitor → EventBus in this process, the same wiring as the daemon; a new session file per sample written under its threshold, read, then one crossing line appended (Claude: an assistant line at 75% of 200k; ai-zen: a usage line past its window) and timed to session.overflowed. ${options.appends} samples each.`,
        ...idle.notes,
      ],
    };
  } finally {
    await project.cleanup();
  }
}
