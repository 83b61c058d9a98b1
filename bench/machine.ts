// The machine a run happened on, for the header of RESULTS.md: numbers mean little without it.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { packageRoot } from '../dist/paths.js';

const run = promisify(execFile);

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly node: string;
  readonly os: string;
  readonly git: string;
  readonly fileSystemTmp: string;
  /** 1, 5 and 15 minute load averages when the run began: other work on the machine skews timings. */
  readonly loadAverage: readonly number[];
  /** The commit the run was built from, and whether src/ or bench/ had uncommitted changes (the build is of the working tree). */
  readonly revision: string;
}

export async function describeMachine(): Promise<Machine> {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism?.() ?? cpus.length,
    memoryBytes: os.totalmem(),
    node: process.version,
    os: `${await distribution()} (${os.type()} ${os.release()}, ${os.arch()})`,
    git: await run('git', ['--version']).then(
      ({ stdout }) => stdout.trim(),
      () => 'git not found',
    ),
    fileSystemTmp: os.tmpdir(),
    loadAverage: os.loadavg(),
    revision: await revision(),
  };
}

async function distribution(): Promise<string> {
  const text = await fs.readFile('/etc/os-release', 'utf8').catch(() => '');
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1];
  return pretty ?? os.platform();
}

async function revision(): Promise<string> {
  try {
    const cwd = packageRoot();
    const head = (await run('git', ['rev-parse', '--short', 'HEAD'], { cwd })).stdout.trim();
    const dirty = (await run('git', ['status', '--porcelain', '--', 'src', 'bench'], { cwd })).stdout
      .split('\n')
      .filter((line) => line.trim().length > 0).length;
    return dirty === 0 ? head : `${head} + ${dirty} uncommitted file${dirty === 1 ? '' : 's'} in src/ or bench/`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
