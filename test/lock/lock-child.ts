// Spawns test/lock/fixtures/hold-lock.mjs (which uses dist/: `npm run build` first, as pretest does).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'fixtures', 'hold-lock.mjs');
const built = path.join(here, '..', '..', 'dist', 'lock', 'os-lock.js');

export interface LockChild {
  readonly child: ChildProcess;
  readonly acquired: boolean;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function spawnLockHolder(name: string, directory: string | null, mode: 'hold' | 'exit-naturally'): Promise<LockChild> {
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  const child = spawn(process.execPath, [fixture, name, directory ?? '-', mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const end = buffer.indexOf('\n');
      if (end >= 0) resolve(buffer.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`lock child exited (${code}) before reporting`)));
  });
  const report = JSON.parse(line) as { acquired: boolean };
  return { child, acquired: report.acquired, exited };
}
