// Benchmark (s): how long Claude Code waits for `ai-zen-daemon statusline`, a fresh
// process on every refresh. Each round spawns, in turn (so the machine's load falls on all alike):
// a bare `node` (the floor no statusline in node can beat), the lean entry the shim runs
// (dist/cli/ai-zen-statusline.js) with no daemon and with a real daemon answering its `statusline`
// request, and the full CLI (`ai-zen-daemon statusline`: commander, zod, …) for comparison; each
// with the JSON Claude Code 2.1.332 sends on stdin, timed from spawn to exit.
import path from 'node:path';
import { startDaemonProcess } from './daemon-process.js';
import type { Figure, ItemResult } from './results.js';
import { formatMs, median, percentile } from './statistics.js';
import { timedRun } from './spawn-timing.js';
import { makeBenchProject } from './temp-project.js';

export interface StatuslineBenchOptions {
  readonly daemonBin: string;
  readonly rounds: number;
  readonly log: (line: string) => void;
}

const TITLE = '(s) Claude Code statusline: `ai-zen-daemon statusline`, spawn to exit';
const TARGET_MS = 100;
const WARMUP = 2;

/** What Claude Code 2.1.332 sent (test/cli/statusline-claude-input.json), for a session in `folder`. */
function claudeInput(folder: string): string {
  return JSON.stringify({
    session_id: 'b1b8a42a-0c27-414e-82ce-bf569a0fdf24',
    transcript_path: path.join(folder, 'nowhere', 'b1b8a42a-0c27-414e-82ce-bf569a0fdf24.jsonl'),
    cwd: folder,
    model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
    workspace: { current_dir: folder, project_dir: folder, added_dirs: [] },
    version: '2.1.332',
    cost: { total_cost_usd: 0.36, total_duration_ms: 3673, total_api_duration_ms: 241, total_lines_added: 0, total_lines_removed: 0 },
    context_window: {
      total_input_tokens: 120000,
      total_output_tokens: 10,
      context_window_size: 200000,
      current_usage: { input_tokens: 120000, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      used_percentage: 60,
      remaining_percentage: 40,
    },
  });
}

export async function benchStatusline(options: StatuslineBenchOptions): Promise<ItemResult> {
  const lean = path.join(path.dirname(options.daemonBin), 'ai-zen-statusline.cjs');
  const off = await makeBenchProject('slo');
  const on = await makeBenchProject('sl');
  // The shim sets a corporate CA bundle aside for the lean entry (its parse is ~40 ms of every Node
  // start): as item h, every case runs without it, or the bare start alone misses the target.
  for (const project of [off, on]) delete project.env.NODE_EXTRA_CA_CERTS;
  const daemon = await startDaemonProcess({
    bin: options.daemonBin,
    root: on.root,
    env: on.env,
    outputFile: path.join(on.home, 'daemon.out'),
  });
  try {
    await daemon.waitForStatus((status) => status.ready, 60_000);
    const cases = {
      bare: { args: ['-e', ''], project: off },
      leanOff: { args: [lean], project: off },
      leanOn: { args: [lean], project: on },
      fullOn: { args: [options.daemonBin, 'statusline'], project: on },
    } as const;
    const samples: Record<keyof typeof cases, number[]> = { bare: [], leanOff: [], leanOn: [], fullOn: [] };
    const lines: Partial<Record<keyof typeof cases, string>> = {};
    for (let round = 0; round < WARMUP + options.rounds; round += 1) {
      for (const name of Object.keys(cases) as (keyof typeof cases)[]) {
        const { args, project } = cases[name];
        const result = await timedRun(args, project.root, project.env, claudeInput(project.root));
        lines[name] = result.stdout.trim();
        if (round >= WARMUP) samples[name].push(result.ms);
      }
      if (round % 10 === 0) options.log(`(s) round ${round + 1}/${WARMUP + options.rounds}`);
    }
    // The lines prove each run did its work (a daemon answer, not a fallback).
    if (!lines.leanOn?.includes('hands off')) throw new Error(`the lean statusline did not get the daemon's answer: ${lines.leanOn}`);
    if (lines.leanOff !== 'ctx 60% · ai-zen off') throw new Error(`unexpected line with no daemon: ${lines.leanOff}`);
    const p95 = (name: keyof typeof cases) => percentile(samples[name], 0.95);
    const over = (name: keyof typeof cases) => samples[name].map((ms, index) => ms - samples.bare[index]!);
    const figures: Figure[] = [
      {
        name: 'lean entry, daemon running: p95 (median)',
        measured: `${formatMs(p95('leanOn'))} (${formatMs(median(samples.leanOn))})`,
        target: `≤ ${TARGET_MS} ms p95`,
        pass: p95('leanOn') <= TARGET_MS,
      },
      {
        name: 'lean entry, no daemon: p95 (median)',
        measured: `${formatMs(p95('leanOff'))} (${formatMs(median(samples.leanOff))})`,
        target: `≤ ${TARGET_MS} ms p95`,
        pass: p95('leanOff') <= TARGET_MS,
      },
      {
        name: 'bare `node -e ""` in the same rounds: p95 (median)',
        measured: `${formatMs(p95('bare'))} (${formatMs(median(samples.bare))})`,
        target: '—',
        pass: null,
      },
      {
        name: 'lean entry over bare node, same round (daemon running): p95 (median)',
        measured: `${formatMs(percentile(over('leanOn'), 0.95))} (${formatMs(median(over('leanOn')))})`,
        target: '—',
        pass: null,
      },
      {
        name: 'full CLI `ai-zen-daemon statusline`, daemon running: p95 (median)',
        measured: `${formatMs(p95('fullOn'))} (${formatMs(median(samples.fullOn))})`,
        target: '—',
        pass: null,
      },
    ];
    return {
      id: 's',
      title: TITLE,
      notRun: null,
      figures,
      notes: [
        `${options.rounds} rounds after ${WARMUP} warm-up rounds; each round spawns the four in turn, the JSON Claude Code 2.1.332 sends on stdin, timed from spawn to exit.`,
        `Lines printed: with a daemon "${lines.leanOn}", without "${lines.leanOff}".`,
        'NODE_EXTRA_CA_CERTS unset for every case (the shim sets it aside for the lean entry; a bare start pays ~40 ms more with one).',
        'The target is wall time; a bare node start is the floor under it on this machine, so the "over bare node" figure is what the statusline itself costs.',
      ],
    };
  } finally {
    await daemon.stop().catch(() => {});
    await on.cleanup();
    await off.cleanup();
  }
}
