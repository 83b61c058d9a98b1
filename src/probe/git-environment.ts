// The environment every git call of ai-zen runs with.
import type { Env } from '../paths.js';

/**
 * Variables that would point git at another repository or index than the one we ask about.
 * They leak in when ai-zen is started from a git hook (a pre-commit hook running the tests,
 * a post-checkout hook starting the daemon); the probe locates the repo from its root instead.
 */
const REPOSITORY_LOCATORS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

/**
 * The caller's environment with optional locks off and no prompts.
 * GIT_OPTIONAL_LOCKS=0: a background `git status` otherwise takes index.lock to refresh the
 * index, and the user's own `git add` / `git commit` then fail on it (measured: 122 of 400).
 */
export function gitEnvironment(env: Env = process.env, extra: Env = {}): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !REPOSITORY_LOCATORS.includes(key)) result[key] = value;
  }
  result.GIT_OPTIONAL_LOCKS = '0';
  // A daemon has nobody to answer a credential or passphrase prompt.
  result.GIT_TERMINAL_PROMPT = '0';
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) result[key] = value;
  }
  return result;
}
