// Trust of a project (T3, T4), as direnv and mise do it: a cloned repo brings its own
// `.ai-zen/hooks/` (run with the user's rights) and `.ai-zen/config.json` (which could send the
// user's key and code to a server it names). Until the user runs `ai-zen-daemon trust` — and
// again after any of those files change — hooks do not run, the project config cannot choose
// endpoint, model or executor, and sessions that came from git are not handed to a model.
//
// The record: `$AI_ZEN_HOME/trust/<hash of the repo's real path>.json` (folder 0700, file 0600,
// written by rename) holding the real path and a sha256 of the hooks, the skills and the project
// config — of what is used, not of the link text: a symlink is judged by what it leads to, and
// the config is judged by the very bytes the loader parsed.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AiZenError } from '../errors.js';
import { fingerprintRegularFile, readRegularFile } from '../fs/read-regular-file.js';
import { ensurePrivateDir } from '../lock/runtime-dir.js';
import { aiZenHome, projectPaths, userConfigPath, type Env } from '../paths.js';
import { CONFIG_MAX_BYTES } from './config-schema.js';

/**
 * - `not-needed`: no hooks, no skills and no project config, and never trusted: nothing to decide.
 * - `trusted`: the user trusted the repo and its hooks, skills and config are as they were then.
 * - `untrusted`: never trusted (or untrusted since).
 * - `changed`: trusted once, but its hooks, skills or config changed since.
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
      return 'nothing to trust (no hooks, no skills, no project config)';
    case 'untrusted':
      return `untrusted: its hooks do not run, its handoff skill is not used, and .ai-zen/config.json may not choose endpoint, model, executor or agentMayMigrate (trust it with: ${TRUST_COMMAND})`;
    case 'changed':
      return `untrusted: its hooks, skills or .ai-zen/config.json changed since you trusted it; they do not run or apply until you trust it again (${TRUST_COMMAND})`;
  }
}

const TrustRecord = z.object({ v: z.literal(1), root: z.string(), fingerprint: z.string().nullable(), trustedAt: z.string() });
type TrustRecord = z.infer<typeof TrustRecord>;

export function trustFolder(env: Env = process.env): string {
  return path.join(aiZenHome(env), 'trust');
}

export interface CheckTrustOptions {
  /**
   * The project config's bytes as the loader read them (null: it read none), so that what is judged
   * is what applies; read here when omitted.
   */
  readonly projectConfig?: Buffer | null;
  /**
   * The project's handoff skill's bytes as the skill loader read them: judged instead of a second
   * read, so that a swap between the loader's read and this check cannot pass off an unapproved
   * skill. Read here when omitted.
   */
  readonly projectSkill?: Buffer;
}

export async function checkTrust(root: string, env: Env = process.env, options: CheckTrustOptions = {}): Promise<TrustVerdict> {
  const realRoot = await fs.realpath(root);
  const recordFile = recordFileFor(realRoot, env);
  const [fingerprint, record] = await Promise.all([projectFingerprint(realRoot, env, options), readRecord(recordFile)]);
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
  // A repo moved or deleted since is forgotten by the path it was trusted at.
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  const recordFile = recordFileFor(realRoot, env);
  try {
    await fs.rm(recordFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new AiZenError('config', `cannot remove ${recordFile}: ${(error as Error).message}`, { cause: error });
  }
}

/** The repos the user trusted (their real paths, as recorded). */
export async function trustedRoots(env: Env = process.env): Promise<string[]> {
  const names = await fs.readdir(trustFolder(env)).catch(() => [] as string[]);
  const records = await Promise.all(
    names.filter((name) => name.endsWith('.json')).map((name) => readRecord(path.join(trustFolder(env), name))),
  );
  return records.flatMap((record) => (record === null ? [] : [record.root]));
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

/** A skill is a few KiB of Markdown; a larger file (or a link to /dev/zero) is skipped unread. */
export const SKILL_MAX_BYTES = 256 * 1024;

/** How much of a hooks or skills folder is looked at: a hostile repo must not make the check endless. */
const MAX_ENTRIES = 2000;
/** In an entry: what could not be read (a link to a device, a FIFO, a file too large). */
const UNREADABLE = '?';

/**
 * sha256 over the project config, everything under `.ai-zen/hooks/` and everything under
 * `.ai-zen/skills/` (path, kind, executable bit, content; a symlink by its target and by the
 * content it leads to). Null when none of them exists.
 */
export async function projectFingerprint(root: string, env: Env = process.env, options: CheckTrustOptions = {}): Promise<string | null> {
  const paths = projectPaths(root);
  const hash = createHash('sha256');
  let found = false;
  const config = options.projectConfig !== undefined ? options.projectConfig : await readProjectConfig(paths.config, env);
  if (config !== null) {
    found = true;
    const digest = typeof config === 'string' ? config : createHash('sha256').update(config).digest('hex');
    hash.update('config\0').update(digest).update('\n');
  }
  const hooks: string[] = [];
  await walk(paths.hooks, '', hooks);
  // Skills go in under their own prefix, so a repo with hooks only keeps the fingerprint it had.
  const skills: string[] = [];
  const skillsDir = path.join(paths.aiZen, 'skills');
  const skill = await handoffSkillDigest(paths.projectSkill, options);
  const seen = { handoff: false };
  await walk(
    skillsDir,
    '',
    skills,
    skill === null ? undefined : { rel: path.relative(skillsDir, paths.projectSkill), sha256: skill, seen },
  );
  // Reached through a linked folder the walk does not enter: what the loader reads is judged all the same.
  if (skill !== null && !seen.handoff) skills.push(`read\0handoff\0${skill}`);
  if (hooks.length > 0 || skills.length > 0) found = true;
  for (const entry of hooks.sort()) hash.update(entry).update('\n');
  for (const entry of skills.sort()) hash.update('skills\0').update(entry).update('\n');
  return found ? hash.digest('hex') : null;
}

/**
 * The project config as the loader reads it (through a symlink), or the reason it cannot be read
 * (the loader refuses it then); null when there is none, or when it is the user's own config
 * ($HOME as the project, a dotfiles repo: nothing to trust).
 */
async function readProjectConfig(file: string, env: Env): Promise<Buffer | string | null> {
  const usersOwn = (await fs.realpath(file).catch(() => null)) === (await fs.realpath(userConfigPath(env)).catch(() => undefined));
  if (usersOwn) return null;
  const read = await readRegularFile(file, CONFIG_MAX_BYTES);
  if (read.ok) return read.bytes;
  return read.missing ? null : UNREADABLE;
}

/** sha256 of the handoff skill as the loader reads it (through links, bounded), or null when it reads none. */
async function handoffSkillDigest(file: string, options: CheckTrustOptions): Promise<string | null> {
  let bytes = options.projectSkill;
  if (bytes === undefined) {
    const read = await readRegularFile(file, SKILL_MAX_BYTES);
    if (!read.ok) return null;
    bytes = read.bytes;
  }
  return createHash('sha256').update(bytes).digest('hex');
}

/** The one file whose content is given (the skill the loader read) rather than read again. */
interface KnownContent {
  readonly rel: string;
  readonly sha256: string;
  readonly seen: { handoff: boolean };
}

async function walk(dir: string, relative: string, entries: string[], known?: KnownContent): Promise<void> {
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
      // What runs (or is read) is the target: a `git pull` that changes it must end the trust.
      const target = await fingerprintRegularFile(full);
      const sha256 = rel === known?.rel && target ? knownContent(known) : target?.sha256;
      const leadsTo = target ? `${target.executable ? 'x' : '-'}\0${sha256}` : UNREADABLE;
      entries.push(`link\0${rel}\0${await fs.readlink(full).catch(() => UNREADABLE)}\0${leadsTo}`);
    } else if (stat.isDirectory()) {
      entries.push(`dir\0${rel}`);
      await walk(dir, rel, entries, known);
    } else if (stat.isFile()) {
      const content = rel === known?.rel ? { sha256: knownContent(known) } : await fingerprintRegularFile(full);
      const executable = (stat.mode & 0o111) !== 0 ? 'x' : '-';
      entries.push(`file\0${rel}\0${executable}\0${content === null ? UNREADABLE : content.sha256}`);
    } else {
      entries.push(`other\0${rel}`);
    }
  }
}

/** The same digest a fresh read of the same bytes gives: a trusted repo keeps its fingerprint. */
function knownContent(known: KnownContent): string {
  known.seen.handoff = true;
  return known.sha256;
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
