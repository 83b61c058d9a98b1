// macOS (and any system with lsof): listening TCP sockets from `lsof`, then the working
// directory of their processes in one more call, kept when inside the project.
import { promises as fs } from 'node:fs';
import type { Known, PortFact } from './facts.js';
import { isInside } from '../paths.js';
import { runProcess } from '../run-process.js';

export type RunLsof = (args: readonly string[]) => Promise<{ readonly stdout: string; readonly exitCode: number }>;

interface LsofProcess {
  pid: number;
  command: string;
  names: string[];
}

export async function listeningPortsFromLsof(root: string, runLsof: RunLsof = defaultRunLsof): Promise<Known<PortFact[]>> {
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { known: false, why: `cannot resolve the project folder: ${describe(error)}` };
  }
  try {
    // -n -P: no DNS or port-name lookups (slow and useless here).
    const listening = await runLsof(['-nP', '-iTCP', '-sTCP:LISTEN', '-Fpcn']);
    const processes = parseLsofRecords(listening.stdout);
    // lsof exits 1 when it found nothing at all.
    if (processes.length === 0) {
      return listening.exitCode <= 1 ? { known: true, value: [] } : { known: false, why: `lsof exited with code ${listening.exitCode}` };
    }
    const cwdOutput = await runLsof(['-a', '-p', processes.map((entry) => entry.pid).join(','), '-d', 'cwd', '-Fpn']);
    const cwdByPid = new Map<number, string>();
    for (const record of parseLsofRecords(cwdOutput.stdout)) {
      const cwd = record.names[0];
      if (cwd?.startsWith('/')) cwdByPid.set(record.pid, cwd);
    }
    const facts: PortFact[] = [];
    for (const entry of processes) {
      const cwd = cwdByPid.get(entry.pid);
      if (cwd === undefined) continue;
      // lsof may print /var/... for /private/var/...: compare real paths.
      const realCwd = await fs.realpath(cwd).catch(() => cwd);
      if (!isInside(realRoot, realCwd)) continue;
      for (const name of new Set(entry.names)) {
        const endpoint = parseEndpoint(name);
        if (endpoint) facts.push({ pid: entry.pid, command: entry.command, ...endpoint });
      }
    }
    facts.sort((a, b) => a.port - b.port || a.pid - b.pid || a.address.localeCompare(b.address));
    return { known: true, value: facts };
  } catch (error) {
    return { known: false, why: `lsof failed: ${describe(error)}` };
  }
}

/** `-F` output: one field per line, `p` opens a process, `c` its command, `n` a file name. */
export function parseLsofRecords(output: string): LsofProcess[] {
  const processes: LsofProcess[] = [];
  let current: LsofProcess | null = null;
  for (const line of output.split('\n')) {
    const field = line[0];
    const value = line.slice(1);
    if (field === 'p') {
      current = { pid: Number(value), command: 'unknown', names: [] };
      processes.push(current);
    } else if (field === 'c' && current) current.command = value;
    else if (field === 'n' && current) current.names.push(value);
  }
  return processes.filter((entry) => Number.isInteger(entry.pid) && entry.pid > 0);
}

/** `*:3000`, `127.0.0.1:3000`, `[::1]:3000` → address and port. */
export function parseEndpoint(name: string): { address: string; port: number } | null {
  const colon = name.lastIndexOf(':');
  if (colon < 0) return null;
  const port = Number(name.slice(colon + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return null;
  const host = name.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  // lsof prints `*` for a wildcard bind without saying v4 or v6; keep it as it is.
  return { address: host, port };
}

const defaultRunLsof: RunLsof = async (args) => {
  const result = await runProcess('lsof', args, { timeoutMs: 10_000, killGraceMs: 1000 });
  // Its exit code is an answer (1: nothing found); only a start failure or a deadline is not.
  if (result.startError) throw new Error(`cannot run lsof: ${result.startError.message}`);
  if (result.stopped) throw new Error('lsof did not finish within 10 s');
  if (result.exitCode === null) throw new Error(`lsof was killed by ${result.signal}`);
  return { stdout: result.stdout, exitCode: result.exitCode };
};

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
