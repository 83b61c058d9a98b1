// Keeps a file of ai-zen's out of git without touching the repo: the hooks ai-zen
// writes into `.claude/settings.local.json` hold this machine's paths, and Claude Code's own
// ignore rule for that file is not in every repo. When the user's ignore rules do not already
// cover it, one line goes into `.git/info/exclude` (local, never committed, never shared).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../paths.js';
import { runGit } from '../../probe/run-git.js';

export type ExcludeOutcome = 'ignored' | 'excluded' | 'tracked' | 'not-a-repo';

/** The comment line each of ai-zen's exclude lines comes after. */
const MARK = "# ai-zen: its hooks hold this machine's paths";

/** The repo's `.git/info/exclude` (null: not a git repo). */
export async function excludeFileOf(root: string, env: Env): Promise<string | null> {
  const inside = await runGit(root, ['rev-parse', '--git-path', 'info/exclude'], { env });
  return inside.ok ? path.resolve(root, inside.stdout.trim()) : null;
}

/** Takes ai-zen's lines (each with its comment) out of the repo's exclude file; the user's stay. */
export async function forgetExcludes(root: string, env: Env): Promise<void> {
  const exclude = await excludeFileOf(root, env);
  const before = exclude === null ? null : await fs.readFile(exclude, 'utf8').catch(() => null);
  if (exclude === null || before === null || !before.includes(MARK)) return;
  const lines = before.split('\n');
  const kept = lines.filter((line, index) => line !== MARK && lines[index - 1] !== MARK);
  await fs.writeFile(exclude, kept.join('\n'));
}

export async function keepOutOfGit(root: string, relative: string, env: Env): Promise<ExcludeOutcome> {
  const slashed = relative.split(path.sep).join('/');
  const inside = await runGit(root, ['rev-parse', '--git-path', 'info/exclude'], { env });
  if (!inside.ok) return 'not-a-repo';
  if ((await runGit(root, ['ls-files', '--error-unmatch', '--', slashed], { env })).ok) return 'tracked';
  if ((await runGit(root, ['check-ignore', '-q', '--', slashed], { env })).ok) return 'ignored';
  const exclude = path.resolve(root, inside.stdout.trim());
  const before = await fs.readFile(exclude, 'utf8').catch(() => '');
  const line = `/${slashed}`;
  if (before.split('\n').includes(line)) return 'excluded';
  await fs.mkdir(path.dirname(exclude), { recursive: true });
  await fs.appendFile(exclude, `${before === '' || before.endsWith('\n') ? '' : '\n'}${MARK}\n${line}\n`);
  return 'excluded';
}
