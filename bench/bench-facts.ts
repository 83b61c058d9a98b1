// Benchmark (d) of the daemon issue: capturing facts in a repo of 10,000 files, against a raw
// `git status --porcelain=v2` in the same run. Target: git facts ≤ 1.5× raw status; ports ≤ 15 ms.
// Not part of `npm test`; `npm run bench` wires it in.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gitEnvironment } from '../dist/probe/git-environment.js';
import { captureGitFacts } from '../dist/probe/git-facts.js';
import { captureListeningPorts } from '../dist/probe/ports.js';

const run = promisify(execFile);

export interface BenchFactsOptions {
  readonly files?: number;
  /** Timed runs per measurement; the median is reported. */
  readonly runs?: number;
  /** Where the temporary repository goes (default: the OS temp folder). */
  readonly tmpDir?: string;
}

export interface BenchFactsResult {
  readonly files: number;
  readonly runs: number;
  readonly rawStatusMs: number;
  readonly gitFactsMs: number;
  /** gitFactsMs / rawStatusMs; target ≤ 1.5. */
  readonly ratio: number;
  readonly portsMs: number;
  readonly targets: { readonly ratio: number; readonly portsMs: number };
  readonly met: { readonly ratio: boolean; readonly portsMs: boolean };
}

export async function benchFacts(options: BenchFactsOptions = {}): Promise<BenchFactsResult> {
  const files = options.files ?? 10_000;
  const runs = options.runs ?? 21;
  const base = await fs.mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), 'ai-zen-bench-facts-'));
  const root = await fs.realpath(base);
  const env = gitEnvironment({ ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(root, '.no-global-config') });
  const git = (...args: string[]) => run('git', args, { cwd: root, env, maxBuffer: 256 * 1024 * 1024 });
  try {
    await createRepository(root, files, git);
    const raw: number[] = [];
    const facts: number[] = [];
    const ports: number[] = [];
    // One untimed round warms the page cache and the JIT; then the three interleave so load drifts evenly.
    for (let round = 0; round <= runs; round += 1) {
      const rawMs = await timed(() => git('status', '--porcelain=v2'));
      const factsMs = await timed(async () => {
        const result = await captureGitFacts(root, { env });
        if (!result.known) throw new Error(`git facts unknown: ${result.why}`);
      });
      const portsMs = await timed(() => captureListeningPorts(root));
      if (round === 0) continue;
      raw.push(rawMs);
      facts.push(factsMs);
      ports.push(portsMs);
    }
    const rawStatusMs = median(raw);
    const gitFactsMs = median(facts);
    const portsMs = median(ports);
    const ratio = gitFactsMs / rawStatusMs;
    const targets = { ratio: 1.5, portsMs: 15 };
    return {
      files,
      runs,
      rawStatusMs: round2(rawStatusMs),
      gitFactsMs: round2(gitFactsMs),
      ratio: round2(ratio),
      portsMs: round2(portsMs),
      targets,
      met: { ratio: ratio <= targets.ratio, portsMs: portsMs <= targets.portsMs },
    };
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** `files` files in folders of 100, committed, then a few staged, changed and untracked ones. */
async function createRepository(root: string, files: number, git: (...args: string[]) => Promise<unknown>): Promise<void> {
  // Old mtimes keep the index free of "racily clean" entries, which every status would re-hash.
  const past = new Date(Date.now() - 3_600_000);
  for (let start = 0; start < files; start += 100) {
    const folder = path.join(root, `src/folder-${String(start / 100).padStart(4, '0')}`);
    await fs.mkdir(folder, { recursive: true });
    await Promise.all(
      Array.from({ length: Math.min(100, files - start) }, async (_, offset) => {
        const file = path.join(folder, `file-${start + offset}.ts`);
        await fs.writeFile(file, `export const value${start + offset} = ${start + offset};\n`);
        await fs.utimes(file, past, past);
      }),
    );
  }
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('-c', 'user.name=bench', '-c', 'user.email=bench@ai-zen.invalid', 'commit', '-q', '-m', 'bench repository');
  await fs.writeFile(path.join(root, 'src/folder-0000/file-0.ts'), 'export const staged = true;\n');
  await git('add', 'src/folder-0000/file-0.ts');
  await fs.writeFile(path.join(root, 'src/folder-0000/file-1.ts'), 'export const unstaged = true;\n');
  await fs.writeFile(path.join(root, 'untracked.txt'), 'new\n');
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
