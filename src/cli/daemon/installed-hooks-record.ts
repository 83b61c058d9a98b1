// What ai-zen last wrote as its hooks: the shim's sha256 and, per settings file, the commands of
// ai-zen's hooks there, in `$AI_ZEN_HOME/installed-hooks.json` (0600). Doctor compares what is on
// disk with it, so a hook or a shim rewritten by anything else (a worm adding its payload to a
// hook that runs at every session start) is named, not passed as ai-zen's.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileInside } from '../../fs/safe-write.js';
import { aiZenHome, type Env } from '../../paths.js';

const FILE = 'installed-hooks.json';
const Record = z.object({
  v: z.literal(1),
  shim: z.string().nullable(),
  files: z.record(z.string(), z.array(z.string())),
});
export type InstalledHooks = z.infer<typeof Record>;

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The record, or null when there is none (ai-zen older than it) or it is not what ai-zen writes. */
export async function readInstalledHooks(env: Env): Promise<InstalledHooks | null> {
  const text = await fs.readFile(path.join(aiZenHome(env), FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = Record.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function update(env: Env, change: (record: InstalledHooks) => InstalledHooks): Promise<void> {
  const before = (await readInstalledHooks(env)) ?? { v: 1, shim: null, files: {} };
  const next = change(before);
  if (JSON.stringify(next) === JSON.stringify(before)) return;
  const home = aiZenHome(env);
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileInside(home, FILE, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
}

export function recordShim(env: Env, text: string): Promise<void> {
  return update(env, (record) => ({ ...record, shim: sha256(text) }));
}

export function recordHookCommands(env: Env, file: string, commands: readonly string[]): Promise<void> {
  return update(env, (record) => ({ ...record, files: { ...record.files, [file]: [...commands] } }));
}

/** Forgets the files' hooks (uninstall: nothing of ours is left there to compare). */
export function forgetHookFiles(env: Env, files: readonly string[]): Promise<void> {
  return update(env, (record) => ({
    ...record,
    files: Object.fromEntries(Object.entries(record.files).filter(([file]) => !files.includes(file))),
  }));
}
