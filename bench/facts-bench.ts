// Benchmark (d): capturing facts in a repo of 10,000 files, beside a raw `git status
// --porcelain=v2` timed in the same run. The measuring itself is the probe's own benchFacts.
import { benchFacts } from './bench-facts.js';
import type { ItemResult } from './results.js';
import { formatMs } from './statistics.js';

export interface FactsBenchOptions {
  readonly files: number;
  readonly runs: number;
  readonly log: (line: string) => void;
}

export async function benchFactsItem(options: FactsBenchOptions): Promise<ItemResult> {
  options.log(`(d) facts in a repo of ${options.files} files, ${options.runs} runs`);
  const result = await benchFacts({ files: options.files, runs: options.runs });
  return {
    id: 'd',
    title: `(d) Facts capture in a repo of ${result.files.toLocaleString('en')} files`,
    notRun: null,
    figures: [
      { name: 'raw `git status --porcelain=v2` (median)', measured: formatMs(result.rawStatusMs), target: '— (the yardstick)', pass: null },
      {
        name: 'git facts: captureGitFacts (median)',
        measured: formatMs(result.gitFactsMs),
        target: `≤ ${formatMs(result.rawStatusMs * result.targets.ratio)} (1.5× raw)`,
        pass: null,
      },
      {
        name: 'git facts / raw status',
        measured: `${result.ratio.toFixed(2)}×`,
        target: `≤ ${result.targets.ratio}×`,
        pass: result.met.ratio,
      },
      {
        name: 'listening ports: captureListeningPorts (median)',
        measured: formatMs(result.portsMs),
        target: `≤ ${result.targets.portsMs} ms`,
        pass: result.met.portsMs,
      },
    ],
    notes: [
      `bench/bench-facts.ts: a fresh repo of ${result.files} committed files in folders of 100, then one staged, one changed and one untracked file; one untimed warm-up round, then ${result.runs} rounds interleaving raw status, git facts (status + log + HEAD facts, optional locks off) and ports; medians.`,
    ],
  };
}
