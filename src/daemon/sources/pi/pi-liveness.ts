// Is a pi session running? pi holds no lock and keeps no file open between its writes (0.73), so on
// Linux it is read from /proc: a process running pi (its `dist/cli.js`, or a `pi` binary) whose
// working directory is the session's (the header's `cwd`), and the session is the newest one of its
// folder — pi writes to the session it runs, and an older one reopened with `--session` is the newest
// again from its next line. Without /proc (macOS) nothing is known: not live.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularHead } from '../../../fs/open-regular-file.js';
import { clientRunsIn } from '../kit/client-in-folder.js';
import { parseRecord } from '../kit/json-record.js';

/** The header is the first line; a few KB hold it. */
const HEAD_BYTES = 16 * 1024;
const PI_COMMAND = /(?:pi-coding-agent\/dist\/cli\.js|(?:^|\/)pi)$/;

export async function isPiSessionLive(file: string, proc = '/proc', except: readonly number[] = []): Promise<boolean> {
  const cwd = await headerCwd(file);
  if (cwd === null || !(await isNewestOfFolder(file))) return false;
  // The program or its script only: a hook ai-zen runs for pi (`… ai-zen-hook.js pi SessionStart`) is no pi.
  return clientRunsIn(cwd, (argv) => argv.slice(0, 2).some((arg) => PI_COMMAND.test(arg)), proc, except);
}

async function headerCwd(file: string): Promise<string | null> {
  const head = await readRegularHead(file, HEAD_BYTES).catch(() => null);
  const header = head === null ? null : parseRecord(head.toString('utf8').split('\n')[0] ?? '');
  return header?.type === 'session' && typeof header.cwd === 'string' && path.isAbsolute(header.cwd) ? header.cwd : null;
}

async function isNewestOfFolder(file: string): Promise<boolean> {
  const folder = path.dirname(file);
  const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.jsonl'));
  const stamps = await Promise.all(names.map(async (name) => (await fs.stat(path.join(folder, name)).catch(() => null))?.mtimeMs ?? 0));
  const newest = stamps.reduce((best, mtime, index) => (mtime > stamps[best]! ? index : best), 0);
  return names[newest] === path.basename(file);
}
