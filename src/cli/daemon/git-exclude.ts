// Keeps a file of ai-zen's out of git without touching the repo: the hooks ai-zen
// writes into `.claude/settings.local.json` hold this machine's paths, and Claude Code's own
// ignore rule for that file is not in every repo. When the user's ignore rules do not already
// cover it, one line goes into `.git/info/exclude` (local, never committed, never shared).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Env } from '../../paths.js';
import { runGit } from '../../probe/run-git.js';

export type ExcludeOutcome = 'ignored' | 'excluded' | 'tracked' | 'not-a-repo';

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
  await fs.appendFile(
    exclude,
    `${before === '' || before.endsWith('\n') ? '' : '\n'}# ai-zen: its hooks hold this machine's paths\n${line}\n`,
  );
  return 'excluded';
}
