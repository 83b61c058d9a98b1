// The repos the user uninstalled ai-zen from, in `$AI_ZEN_HOME/uninstalled.json`: a hook that still
// runs there (Codex's hooks are user-wide, one install for every repo) then says nothing, instead of
// telling the session the repo is unprotected. install-hooks and enable take a repo off the list.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileInside } from '../../fs/safe-write.js';
import { aiZenHome, type Env } from '../../paths.js';

const FILE = 'uninstalled.json';

export async function uninstalledRepos(env: Env): Promise<string[]> {
  try {
    const value: unknown = JSON.parse(await fs.readFile(path.join(aiZenHome(env), FILE), 'utf8'));
    return Array.isArray(value) ? value.filter((repo): repo is string => typeof repo === 'string') : [];
  } catch {
    return [];
  }
}

/** Puts the repo on the list (on) or takes it off. */
export async function markUninstalled(env: Env, root: string, on: boolean): Promise<void> {
  const before = await uninstalledRepos(env);
  const after = on ? [...new Set([...before, root])].sort() : before.filter((repo) => repo !== root);
  if (after.length === before.length && after.every((repo, index) => repo === before[index])) return;
  const home = aiZenHome(env);
  if (after.length === 0) {
    await fs.rm(path.join(home, FILE), { force: true });
    return;
  }
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileInside(home, FILE, `${JSON.stringify(after, null, 2)}\n`, { mode: 0o600 });
}
