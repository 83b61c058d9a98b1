// Which repos ai-zen keeps protected without being asked: `ai-zen-daemon enable`
// lists a repo, `enable --global` every repo. Kept in the user's own `$AI_ZEN_HOME/enabled.json`,
// never in a repo: a cloned repo cannot enable itself.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AiZenError } from '../../errors.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { aiZenHome, type Env } from '../../paths.js';

const FILE = 'enabled.json';
const Enabled = z.object({ global: z.boolean().default(false), repos: z.array(z.string()).default([]) });
export type Enabled = z.infer<typeof Enabled>;

export function enabledPath(env: Env): string {
  return path.join(aiZenHome(env), FILE);
}

export async function readEnabled(env: Env): Promise<Enabled> {
  const text = await fs.readFile(enabledPath(env), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return { global: false, repos: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AiZenError('config', `${enabledPath(env)} is not valid JSON; fix or remove it`);
  }
  const parsed = Enabled.safeParse(value);
  if (!parsed.success) throw new AiZenError('config', `${enabledPath(env)} is not what ai-zen wrote; fix or remove it`);
  return parsed.data;
}

export async function isEnabled(root: string, env: Env): Promise<boolean> {
  const enabled = await readEnabled(env).catch(() => ({ global: false, repos: [] }) as Enabled);
  return enabled.global || enabled.repos.includes(root);
}

/** Turns a repo (or, with root null, every repo) on or off; returns whether anything changed. */
export async function setEnabled(root: string | null, on: boolean, env: Env): Promise<boolean> {
  const before = await readEnabled(env);
  const after: Enabled =
    root === null
      ? { ...before, global: on }
      : { ...before, repos: on ? [...new Set([...before.repos, root])].sort() : before.repos.filter((repo) => repo !== root) };
  if (JSON.stringify(before) === JSON.stringify(after)) return false;
  const home = aiZenHome(env);
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileInside(home, FILE, `${JSON.stringify(after, null, 2)}\n`, { mode: 0o600 });
  return true;
}
