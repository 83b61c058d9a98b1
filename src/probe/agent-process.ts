// Which agent process ran a hook: the nearest ancestor of the hook's process that is not a shell
// (agents run a hook's command through `sh -c`, and ai-zen's shim is a shell script). The Stop hook of
// a session handed off and the SessionStart hook that `/clear` fires next come from the same agent
// process: that is how the daemon knows the fresh session continues the handed-off one. Read from
// /proc (Linux); elsewhere, or when a process is gone, null — the successor is then not linked.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Programs that only pass a hook's command on. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'busybox', 'env', 'timeout', 'nice', 'nohup']);
/** Ancestors looked at, at most. */
const MAX_DEPTH = 8;

/** `/proc/<pid>/stat`'s command name and parent pid; null when the process is gone or unreadable. */
export function processEntry(pid: number, proc = '/proc'): { readonly name: string; readonly parent: number } | null {
  let stat: string;
  try {
    stat = readFileSync(path.join(proc, String(pid), 'stat'), 'utf8');
  } catch {
    return null;
  }
  // "<pid> (<comm>) <state> <ppid> …": the name may hold spaces and parentheses, so the last ")" ends it.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open === -1 || close < open) return null;
  const parent = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isInteger(parent) ? { name: stat.slice(open + 1, close), parent } : null;
}

/** `pid` and the processes above it (a program may run itself again as a child: both are the one agent). */
export function lineageOf(pid: number, proc = '/proc'): number[] {
  const lineage: number[] = [];
  for (let current = pid, depth = 0; current > 1 && depth < MAX_DEPTH; depth++) {
    lineage.push(current);
    const entry = processEntry(current, proc);
    if (entry === null) break;
    current = entry.parent;
  }
  return lineage;
}

/** The agent process a hook runs under: from `pid` (the hook's parent) up past shells; null when none is found. */
export function agentProcessOf(pid: number, proc = '/proc'): number | null {
  let current = pid;
  for (let depth = 0; depth < MAX_DEPTH && current > 1; depth++) {
    const entry = processEntry(current, proc);
    if (entry === null) return null;
    if (!SHELLS.has(entry.name)) return current;
    current = entry.parent;
  }
  return null;
}
