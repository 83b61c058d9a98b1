// Linux: listening sockets from /proc/net/tcp{,6}, owned by processes whose working directory
// is inside the project (socket inodes matched through /proc/<pid>/fd). Processes we may not
// inspect (other users) are skipped, not fatal.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Known, PortFact } from './facts.js';
import { isInside } from './is-inside.js';
import { parseProcNetTcp, type ListeningSocket } from './proc-net-tcp.js';

export async function listeningPortsFromProc(root: string, proc = '/proc'): Promise<Known<PortFact[]>> {
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { known: false, why: `cannot resolve the project folder: ${describe(error)}` };
  }
  let tcp: string;
  try {
    tcp = await fs.readFile(path.join(proc, 'net', 'tcp'), 'utf8');
  } catch (error) {
    return { known: false, why: `cannot read ${path.join(proc, 'net', 'tcp')}: ${describe(error)}` };
  }
  // A kernel without IPv6 has no tcp6; that only means no v6 listeners.
  const tcp6 = await fs.readFile(path.join(proc, 'net', 'tcp6'), 'utf8').catch(() => '');

  const byInode = new Map<string, ListeningSocket[]>();
  for (const socket of [...parseProcNetTcp(tcp), ...parseProcNetTcp(tcp6)]) {
    const list = byInode.get(socket.inode) ?? [];
    list.push(socket);
    byInode.set(socket.inode, list);
  }
  if (byInode.size === 0) return { known: true, value: [] };

  let entries: string[];
  try {
    entries = await fs.readdir(proc);
  } catch (error) {
    return { known: false, why: `cannot list ${proc}: ${describe(error)}` };
  }
  const pids = entries.filter((name) => /^\d+$/.test(name));
  const perProcess = await Promise.all(pids.map((pid) => portsOfProcess(proc, pid, realRoot, byInode)));
  const facts = perProcess.flat();
  facts.sort((a, b) => a.port - b.port || a.pid - b.pid || a.address.localeCompare(b.address));
  return { known: true, value: facts };
}

async function portsOfProcess(
  proc: string,
  pid: string,
  realRoot: string,
  byInode: ReadonlyMap<string, readonly ListeningSocket[]>,
): Promise<PortFact[]> {
  const processDir = path.join(proc, pid);
  // The kernel gives the physical path; a removed folder gets a " (deleted)" suffix.
  const cwd = await fs.readlink(path.join(processDir, 'cwd')).catch(() => null);
  if (cwd === null || !isInside(realRoot, cwd.replace(/ \(deleted\)$/, ''))) return [];
  const fds = await fs.readdir(path.join(processDir, 'fd')).catch(() => [] as string[]);
  const targets = await Promise.all(fds.map((fd) => fs.readlink(path.join(processDir, 'fd', fd)).catch(() => null)));
  const sockets: ListeningSocket[] = [];
  const seen = new Set<string>();
  for (const target of targets) {
    const inode = /^socket:\[(\d+)\]$/.exec(target ?? '')?.[1];
    if (inode === undefined || seen.has(inode)) continue;
    seen.add(inode);
    sockets.push(...(byInode.get(inode) ?? []));
  }
  if (sockets.length === 0) return [];
  const command = await commandOf(processDir);
  return sockets.map((socket) => ({ pid: Number(pid), command, port: socket.port, address: socket.address }));
}

/** comm, not cmdline: arguments may hold secrets, and the facts end up in a committed document. */
async function commandOf(processDir: string): Promise<string> {
  const comm = await fs.readFile(path.join(processDir, 'comm'), 'utf8').catch(() => '');
  return comm.trim() || 'unknown';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
