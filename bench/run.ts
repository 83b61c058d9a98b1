// `npm run bench`: runs the daemon benchmark (items a–g, s: the statusline, r: twenty idle enabled repos, h: every turn's hook,
// t: a big transcript handed off, w: the idle handoff with an injected clock) and writes
// bench/RESULTS.md. Never part of `npm test`. `--quick` shrinks sizes and counts for a smoke run
// (printed to stdout unless --out is given, so it never overwrites the real results);
// `--only b,d` runs some items. Progress goes to stderr.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../dist/paths.js';
import { benchBigTranscript } from './big-transcript-bench.js';
import { benchCommitLock } from './commit-lock-bench.js';
import { benchAgents } from './agents-bench.js';
import { benchEndToEnd } from './end-to-end-bench.js';
import { benchFactsItem } from './facts-bench.js';
import { benchIdle } from './idle-bench.js';
import { benchIdleHandoff } from './idle-handoff-bench.js';
import { benchIdleRepos } from './idle-repos-bench.js';
import { benchHooks } from './hook-bench.js';
import { benchLatency } from './latency-bench.js';
import { describeMachine } from './machine.js';
import { benchReader } from './reader-bench.js';
import { benchStatusline } from './statusline-bench.js';
import { benchSubscriber } from './subscriber-bench.js';
import { renderResults } from './render-results.js';
import { notRun, type ItemResult } from './results.js';

type ItemId = ItemResult['id'];
const ALL: readonly ItemId[] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'x', 's', 'r', 'h', 't', 'w'];
const TITLES: Record<ItemId, string> = {
  a: '(a) Overflow detection latency',
  b: '(b) Incremental reader: bytes read and time per append',
  c: '(c) Idle CPU and RSS of a real daemon',
  d: '(d) Facts capture',
  e: '(e) Overflow → committed handoff doc, end to end',
  f: '(f) How long a handoff commit holds the user’s index.lock',
  g: '(g) Overflow at an IPC subscriber of the real daemon process',
  x: '(x) X3: other agents’ sessions cost what ai-zen sessions cost',
  s: '(s) Claude Code statusline: spawn to exit',
  r: '(r) Twenty enabled repos, idle: total daemon RSS against one daemon’s',
  h: '(h) Every turn’s hook and the statusline against a bare node start',
  t: '(t) A big transcript of Claude Code and of Codex handed off at bounded memory',
  w: '(w) Idle handoff while the cache is warm, with an injected clock',
};

interface Arguments {
  readonly quick: boolean;
  readonly only: readonly ItemId[];
  readonly out: string | null;
}

function parseArguments(argv: readonly string[]): Arguments {
  let quick = false;
  let only: ItemId[] = [...ALL];
  let out: string | null = null;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--quick') quick = true;
    else if (argument === '--only') {
      const list = (argv[++index] ?? '').split(',').filter(Boolean);
      const wrong = list.filter((item) => !ALL.includes(item as ItemId));
      if (wrong.length > 0 || list.length === 0)
        throw new Error(`--only takes items from ${ALL.join(',')}, got ${JSON.stringify(argv[index] ?? '')}`);
      only = list as ItemId[];
    } else if (argument === '--out') out = argv[++index] ?? null;
    else throw new Error(`unknown argument ${argument}; use --quick, --only a,b,c,d,e,f,g,x,s,r,h,t,w, --out FILE`);
  }
  return { quick, only, out };
}

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function runItem(id: ItemId, quick: boolean): Promise<ItemResult> {
  const daemonBin = path.join(packageRoot(), 'dist', 'cli', 'ai-zen-daemon.js');
  switch (id) {
    case 'a':
      return benchLatency({ appends: quick ? 30 : 200, idleAppends: quick ? 3 : 6, idleMs: 1500, log });
    case 'b':
      return quick
        ? benchReader({ sizesMb: [1, 10, 50], appends: 30, reparseMb: 10, reparseRuns: 2, log })
        : benchReader({ sizesMb: [1, 100, 500], appends: 200, reparseMb: 100, reparseRuns: 3, log });
    case 'c':
      return benchIdle({
        daemonBin,
        counts: quick ? [1, 100, 1000] : [1, 100, 1000, 10_000],
        idleMs: quick ? 3000 : 20_000,
        steadyAfterSpawnMs: quick ? 5000 : 60_000,
        log,
      });
    case 'd':
      return benchFactsItem({ files: quick ? 2000 : 10_000, runs: quick ? 5 : 21, log });
    case 'e':
      return benchEndToEnd({ daemonBin, runs: quick ? 2 : 5, log });
    case 'f':
      return benchCommitLock({ commits: quick ? 10 : 60, log });
    case 'g':
      return benchSubscriber({ daemonBin, appends: quick ? 30 : 200, log });
    case 'x':
      return benchAgents({
        daemonBin,
        appends: quick ? 20 : 100,
        otherTranscripts: 10_000,
        opencodeMegabytes: quick ? 50 : 500,
        opencodeSessions: quick ? 500 : 5000,
        clineSessions: 5000,
        steadyAfterSpawnMs: quick ? 10_000 : 60_000,
        idleMs: quick ? 10_000 : 20_000,
        log,
      });
    case 's':
      return benchStatusline({ daemonBin, rounds: quick ? 11 : 41, log });
    case 'r':
      return benchIdleRepos({ daemonBin, repos: quick ? 5 : 20, idleMinutes: quick ? 0.05 : 0.25, steadyMs: quick ? 5000 : 30_000, log });
    case 'h':
      return benchHooks({ daemonBin, rounds: quick ? 21 : 101, log });
    case 't':
      // 2 GB each by default; AI_ZEN_BENCH_TRANSCRIPT_MB for a machine whose temp folder lacks the ~4 GB.
      return benchBigTranscript({ daemonBin, megabytes: quick ? 200 : Number(process.env.AI_ZEN_BENCH_TRANSCRIPT_MB ?? 2048), log });
    case 'w':
      return benchIdleHandoff({ sizes: quick ? [120_000, 400_000] : [120_000, 210_000, 300_000, 450_000, 650_000], log });
  }
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const startedAt = new Date();
  const started = performance.now();
  const machine = await describeMachine();
  const items: ItemResult[] = [];
  for (const id of args.only) {
    const itemStart = performance.now();
    const loadBefore = os.loadavg()[0] ?? Number.NaN;
    try {
      const result = await runItem(id, args.quick);
      // Other work on the machine moves timings; each item says how busy it was around it.
      const load = `Machine load (1-minute average) when this item began / ended: ${loadBefore.toFixed(2)} / ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)} on ${machine.cores} cores.`;
      items.push({ ...result, notes: [...result.notes, load] });
    } catch (error) {
      // An item that cannot run says why in the results; the others still run.
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? String(error)) : String(error);
      log(`(${id}) could not run: ${reason}`);
      items.push(notRun(id, TITLES[id], reason));
    }
    log(`(${id}) done in ${((performance.now() - itemStart) / 1000).toFixed(1)} s`);
  }
  const partial = args.quick || args.only.length !== ALL.length;
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const text = renderResults(
    machine,
    { startedAt, durationMs: performance.now() - started, quick: args.quick, command, loadAverageAtEnd: os.loadavg() },
    items,
  );
  const out = args.out ?? (partial ? null : path.join(packageRoot(), 'bench', 'RESULTS.md'));
  if (out) {
    await fs.mkdir(path.dirname(out), { recursive: true });
    await fs.writeFile(out, text);
    log(`wrote ${out}`);
  } else process.stdout.write(text);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
