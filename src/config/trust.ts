// Trust of a project (T3, T4), as direnv and mise do it: a cloned repo brings its own
// `.ai-zen/hooks/` (run with the user's rights) and `.ai-zen/config.json` (which could send the
// user's key and code to a server it names). Until the user runs `ai-zen-daemon trust` — and
// again after any of those files change — hooks do not run, the project config cannot choose
// endpoint, model or executor, and sessions that came from git are not handed to a model.
//
// The record: `$AI_ZEN_HOME/trust/<hash of the repo's real path>.json` (folder 0700, file 0600,
// written by rename) holding the real path and a sha256 of the hooks and the project config.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AiZenError } from '../errors.js';
import { ensurePrivateDir } from '../lock/runtime-dir.js';
import { aiZenHome, projectPaths, userConfigPath, type Env } from '../paths.js';

/**
 * - `not-needed`: no hooks and no project config, and never trusted: nothing to decide.
 * - `trusted`: the user trusted the repo and its hooks and config are as they were then.
 * - `untrusted`: never trusted (or untrusted since).
 * - `changed`: trusted once, but its hooks or config changed since.
 */
export type TrustState = 'not-needed' | 'trusted' | 'untrusted' | 'changed';

export interface TrustVerdict {
  readonly state: TrustState;
  /** Real path of the project root. */
  readonly root: string;
  /** sha256 of the hooks and the project config; null when there are none. */
  readonly fingerprint: string | null;
  readonly recordFile: string;
}

export const TRUST_COMMAND = 'ai-zen-daemon trust';

/** Hooks may run and the project config may choose endpoint, model and executor. */
export function allowsProjectChoices(verdict: TrustVerdict): boolean {
  return verdict.state === 'trusted' || verdict.state === 'not-needed';
}

/** One line for a person: what the state means and what to do about it. */
export function describeTrust(verdict: TrustVerdict): string {
  switch (verdict.state) {
    case 'trusted':
      return 'trusted';
    case 'not-needed':
      return 'nothing to trust (no hooks, no project config)';
    case 'untrusted':
      return `untrusted: its hooks do not run and .ai-zen/config.json may not choose endpoint, model or executor (trust it with: ${TRUST_COMMAND})`;
    case 'changed':
      return `untrusted: its hooks or .ai-zen/config.json changed since you trusted it; they do not run or apply until you trust it again (${TRUST_COMMAND})`;
  }
}

const TrustRecord = z.object({ v: z.literal(1), root: z.string(), fingerprint: z.string().nullable(), trustedAt: z.string() });
type TrustRecord = z.infer<typeof TrustRecord>;

export function trustFolder(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'trust');
}

export async function checkTrust(root: string, env: Env = process.env): Promise<TrustVerdict> {
  const realRoot = await fs.realpath(root);
  const recordFile = recordFileFor(realRoot, env);
  const [fingerprint, record] = await Promise.all([projectFingerprint(realRoot, env), readRecord(recordFile)]);
  let state: TrustState;
  if (record && record.root === realRoot) state = record.fingerprint === fingerprint ? 'trusted' : 'changed';
  else state = fingerprint === null ? 'not-needed' : 'untrusted';
  return { state, root: realRoot, fingerprint, recordFile };
}

/** Records the repo as it is now as trusted. */
export async function trustProject(root: string, env: Env = process.env, now: () => Date = () => new Date()): Promise<TrustVerdict> {
  const realRoot = await fs.realpath(root);
  const fingerprint = await projectFingerprint(realRoot, env);
  const recordFile = recordFileFor(realRoot, env);
  const record: TrustRecord = { v: 1, root: realRoot, fingerprint, trustedAt: now().toISOString() };
  await writePrivateFile(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  return { state: 'trusted', root: realRoot, fingerprint, recordFile };
}

/** Forgets the repo's trust; false when it was not trusted. */
export async function untrustProject(root: string, env: Env = process.env): Promise<boolean> {
  const realRoot = await fs.realpath(root);
  const recordFile = recordFileFor(realRoot, env);
  try {
    await fs.rm(recordFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new AiZenError('config', `cannot remove ${recordFile}: ${(error as Error).message}`, { cause: error });
  }
}

function recordFileFor(realRoot: string, env: Env): string {
  return path.join(trustFolder(env), `${createHash('sha256').update(realRoot).digest('hex').slice(0, 32)}.json`);
}

async function readRecord(file: string): Promise<TrustRecord | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = TrustRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // a torn or foreign file trusts nothing
  }
}

/** How much of a hooks folder is looked at: a hostile repo must not make the check endless. */
const MAX_ENTRIES = 2000;

/**
 * sha256 over the project config and everything under `.ai-zen/hooks/` (path, kind, executable
 * bit, content; a symlink by its target, never followed). Null when neither exists.
 */
export async function projectFingerprint(root: string, env: Env = process.env): Promise<string | null> {
  const paths = projectPaths(root);
  const hash = createHash('sha256');
  let found = false;
  // $HOME as the project (a dotfiles repo): its config is the user's own, nothing to trust.
  const usersOwn = (await fs.realpath(paths.config).catch(() => null)) === (await fs.realpath(userConfigPath(env)).catch(() => undefined));
  const config = usersOwn ? null : await readIfFile(paths.config);
  if (config !== null) {
    found = true;
    hash.update('config\0').update(createHash('sha256').update(config).digest('hex')).update('\n');
  }
  const entries: string[] = [];
  await walk(paths.hooks, '', entries);
  if (entries.length > 0) found = true;
  for (const entry of entries.sort()) hash.update(entry).update('\n');
  return found ? hash.digest('hex') : null;
}

async function walk(dir: string, relative: string, entries: string[]): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(dir, relative));
  } catch {
    return;
  }
  for (const name of names) {
    if (entries.length >= MAX_ENTRIES) {
      entries.push('…more entries');
      return;
    }
    const rel = relative === '' ? name : `${relative}/${name}`;
    const full = path.join(dir, rel);
    const stat = await fs.lstat(full).catch(() => null);
    if (!stat) continue;
    if (stat.isSymbolicLink()) {
      entries.push(`link\0${rel}\0${await fs.readlink(full).catch(() => '?')}`);
    } else if (stat.isDirectory()) {
      entries.push(`dir\0${rel}`);
      await walk(dir, rel, entries);
    } else if (stat.isFile()) {
      const content = await readIfFile(full);
      const executable = (stat.mode & 0o111) !== 0 ? 'x' : '-';
      entries.push(`file\0${rel}\0${executable}\0${content === null ? '?' : createHash('sha256').update(content).digest('hex')}`);
    } else {
      entries.push(`other\0${rel}`);
    }
  }
}

/** A regular file's bytes, read without blocking on a FIFO or device; null otherwise. */
async function readIfFile(file: string): Promise<Buffer | null> {
  const stat = await fs.lstat(file).catch(() => null);
  if (!stat?.isFile()) return null;
  return fs.readFile(file).catch(() => null);
}

/** Written beside its final name and renamed into place: a reader sees the old record or the new. */
async function writePrivateFile(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.dirname(file)), { recursive: true, mode: 0o700 });
  await ensurePrivateDir(path.dirname(file));
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}
