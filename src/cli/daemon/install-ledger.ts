// What each file ai-zen writes for an agent was before ai-zen first wrote it — its bytes, or absent,
// and the folders made for it — in `$AI_ZEN_HOME/installed-files.json` (0600), so `uninstall` can
// put the user's file back byte for byte, or remove the file and folders ai-zen created. A file the
// user changed since is left as it is once ours is out of it: their edit wins over the old bytes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readRegularText } from '../../fs/open-regular-file.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { readJsonc } from '../../daemon/sources/settings-jsonc.js';
import { aiZenHome, type Env } from '../../paths.js';

const FILE = 'installed-files.json';
const Entry = z.object({
  /** The repo the file was written for; null: a user-wide file (Codex's). */
  repo: z.string().nullable(),
  /** The file's bytes before ai-zen's first write (utf8); null: there was no file. */
  before: z.string().nullable(),
  /** Folders that did not exist before, deepest first: removed again when left empty. */
  folders: z.array(z.string()),
});
const Ledger = z.object({ v: z.literal(1), files: z.record(z.string(), Entry) });
type Ledger = z.infer<typeof Ledger>;
export type LedgerEntry = z.infer<typeof Entry>;

const ledgerPath = (env: Env) => path.join(aiZenHome(env), FILE);

export async function readLedger(env: Env): Promise<Ledger> {
  const text = await fs.readFile(ledgerPath(env), 'utf8').catch(() => null);
  if (text === null) return { v: 1, files: {} };
  try {
    const parsed = Ledger.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : { v: 1, files: {} };
  } catch {
    return { v: 1, files: {} };
  }
}

async function writeLedger(env: Env, ledger: Ledger): Promise<void> {
  const home = aiZenHome(env);
  if (Object.keys(ledger.files).length === 0) {
    await fs.rm(ledgerPath(env), { force: true });
    return;
  }
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileInside(home, FILE, `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Notes each file as it is now, unless already noted (an earlier install saw the user's version);
 * `within`: the folder whose missing sub-folders on the way to the file ai-zen will have made.
 */
export async function rememberBefore(env: Env, repo: string | null, files: readonly { file: string; within: string }[]): Promise<void> {
  const ledger = await readLedger(env);
  let changed = false;
  for (const { file, within } of files) {
    if (Object.hasOwn(ledger.files, file)) continue;
    const read = await readBefore(file);
    // Not a file ai-zen can write (a FIFO, a device, unreadable): the install refuses it, so nothing to note.
    if (read === 'unreadable') continue;
    const before = read;
    const folders: string[] = [];
    for (let folder = path.dirname(file); folder.startsWith(`${within}${path.sep}`); folder = path.dirname(folder))
      if (!(await exists(folder))) folders.push(folder);
    ledger.files[file] = { repo, before, folders };
    changed = true;
  }
  if (changed) await writeLedger(env, ledger);
}

/** The noted files of a repo (or, repo null, the user-wide ones). */
export async function ledgerFilesOf(env: Env, repo: string | null): Promise<string[]> {
  const ledger = await readLedger(env);
  return Object.entries(ledger.files)
    .filter(([, entry]) => entry.repo === repo)
    .map(([file]) => file);
}

/** The repos the ledger knows of. */
export async function ledgerRepos(env: Env): Promise<string[]> {
  const ledger = await readLedger(env);
  return [...new Set(Object.values(ledger.files).flatMap((entry) => (entry.repo === null ? [] : [entry.repo])))];
}

export type PutBack = 'restored' | 'removed' | 'kept' | 'unchanged';

/**
 * Once ours is out of the file (the agent's uninstall did that): the user's bytes back when what is
 * left means what they had, the file and ai-zen's folders gone when ai-zen created it and it holds
 * nothing. The entry is forgotten either way.
 */
export async function putBack(env: Env, file: string): Promise<PutBack> {
  const ledger = await readLedger(env);
  const entry = ledger.files[file];
  if (!entry) return 'unchanged';
  const read = await readBefore(file);
  const current = read === 'unreadable' ? null : read;
  let outcome: PutBack = 'kept';
  if (current === null) outcome = 'unchanged';
  else if (entry.before === null && (await holdsNothing(current))) {
    await fs.rm(file, { force: true });
    outcome = 'removed';
  } else if (entry.before !== null && current === entry.before) outcome = 'unchanged';
  else if (entry.before !== null && (await sameMeaning(current, entry.before))) {
    await fs.writeFile(file, entry.before);
    outcome = 'restored';
  }
  for (const folder of entry.folders) await fs.rmdir(folder).catch(() => {});
  delete ledger.files[file];
  await writeLedger(env, ledger);
  return outcome;
}

/** Forgets every entry of a repo that is gone (nothing left to put back). */
export async function forgetRepo(env: Env, repo: string): Promise<void> {
  const ledger = await readLedger(env);
  for (const [file, entry] of Object.entries(ledger.files)) if (entry.repo === repo) delete ledger.files[file];
  await writeLedger(env, ledger);
}

/**
 * A settings file's text; null when there is none. Never a read that blocks or is not a file's (a
 * FIFO a cloned repo put at the path would hold the install forever): 'unreadable'.
 */
async function readBefore(file: string): Promise<string | null | 'unreadable'> {
  try {
    return await readRegularText(file, { follow: true });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'unreadable';
  }
}

async function holdsNothing(text: string): Promise<boolean> {
  const parsed = await parsedOf(text);
  return text.trim() === '' || (parsed !== null && typeof parsed === 'object' && Object.keys(parsed).length === 0);
}

/** The same settings: equal as JSON (comments allowed), as TOML, or as text but for blank lines at the end. */
async function sameMeaning(current: string, before: string): Promise<boolean> {
  if (current.trimEnd() === before.trimEnd()) return true;
  const [now, then] = [await parsedOf(current), await parsedOf(before)];
  return now !== null && then !== null && canonical(now) === canonical(then);
}

async function parsedOf(text: string): Promise<unknown> {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // opencode's, Gemini's and Qwen's settings may hold comments and trailing commas.
    const jsonc = readJsonc(text, 'jsonc');
    if (jsonc.ok) return jsonc.value;
    try {
      // Loaded only here: uninstall reads Codex's config.toml, nothing else on this path needs it.
      return (await import('smol-toml')).parse(text);
    } catch {
      return null;
    }
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );
