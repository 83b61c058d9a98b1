// `doctor`'s look at the agents' settings (issue 20 §5): each ai-zen hook must run the stable shim
// ($AI_ZEN_HOME/bin/ai-zen-daemon) or an `ai-zen-daemon` found on the PATH. A hook that names a
// checkout's script breaks when that checkout moves, and one naming a path that is gone already
// did break — silently, since a hook never fails its agent.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { codexHooksPath } from '../daemon/sources/codex/codex-hooks.js';
import { parseSettingsObject, type Json } from '../daemon/sources/hook-groups.js';
import { describeError } from '../errors.js';
import { readRegularText } from '../fs/open-regular-file.js';
import { hookShimPath, type Env } from '../paths.js';
import type { Finding } from './doctor-finding.js';

const OURS = / hook (claude|codex) (Stop|PreCompact|SessionStart)$/;

/** The first words of a shell command as the shell would split them (quotes and backslashes undone). */
export function shellWords(command: string, count: number): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let index = 0;
  while (index < command.length && words.length < count) {
    const char = command[index]!;
    if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
      index += 1;
    } else if (char === "'") {
      const end = command.indexOf("'", index + 1);
      word = (word ?? '') + command.slice(index + 1, end === -1 ? undefined : end);
      index = end === -1 ? command.length : end + 1;
    } else if (char === '"') {
      let text = '';
      index += 1;
      while (index < command.length && command[index] !== '"') {
        if (command[index] === '\\' && index + 1 < command.length) index += 1;
        text += command[index];
        index += 1;
      }
      word = (word ?? '') + text;
      index += 1;
    } else if (char === '\\' && index + 1 < command.length) {
      word = (word ?? '') + command[index + 1];
      index += 2;
    } else {
      word = (word ?? '') + char;
      index += 1;
    }
  }
  if (word !== null && words.length < count) words.push(word);
  return words;
}

function ourCommands(settings: Json): string[] {
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== 'object') return [];
  const commands: string[] = [];
  for (const groups of Object.values(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const inner = (group as Json | null)?.hooks;
      if (!Array.isArray(inner)) continue;
      for (const hook of inner) {
        const command = (hook as Json | null)?.command;
        if (typeof command === 'string' && OURS.test(command)) commands.push(command);
      }
    }
  }
  return commands;
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

async function onPath(name: string, env: Env): Promise<boolean> {
  for (const folder of (env.PATH ?? '').split(path.delimiter).filter(Boolean))
    if (
      await fs.access(path.join(folder, name), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  return false;
}

/** What is wrong with one hook command, or null when it runs the shim or ai-zen-daemon from the PATH. */
async function whatIsWrong(command: string, env: Env): Promise<string | null> {
  const [program = '', second] = shellWords(command, 2);
  if (program === hookShimPath(env)) return null;
  if (program === 'ai-zen-daemon') return (await onPath(program, env)) ? null : 'runs ai-zen-daemon from the PATH, and there is none on it';
  // `node /checkout/dist/cli/ai-zen-daemon.js hook …`: what is named is the script.
  const named = path.basename(program) === 'node' && second !== undefined ? second : program;
  if (!path.isAbsolute(named)) return null;
  if (!(await exists(named))) return `runs ${named}, which no longer exists`;
  return `runs ${named} (a checkout of ai-zen) instead of the stable ${hookShimPath(env)}: moving or re-cloning it breaks the hook`;
}

interface FileVerdict {
  readonly finding: Finding | null;
  /** Some hook of ours runs the shim: it must be there. */
  readonly namesShim: boolean;
}

async function checkSettingsFile(file: string, shown: string, fix: string, env: Env): Promise<FileVerdict> {
  // A FIFO at a settings path would hang doctor: only a regular file is read (anything else is no settings).
  const text = await readRegularText(file, { follow: true }).catch(() => null);
  if (text === null) return { finding: null, namesShim: false };
  let settings: Json;
  try {
    settings = parseSettingsObject(text, shown);
  } catch (error) {
    return { finding: { check: 'hooks', status: 'problem', message: describeError(error), fix: `fix ${file} by hand` }, namesShim: false };
  }
  const commands = ourCommands(settings);
  if (commands.length === 0) return { finding: null, namesShim: false };
  const namesShim = commands.some((command) => shellWords(command, 1)[0] === hookShimPath(env));
  const wrong = (await Promise.all(commands.map((command) => whatIsWrong(command, env)))).filter((why): why is string => why !== null);
  if (wrong.length === 0)
    return {
      finding: { check: 'hooks', status: 'ok', message: `${shown}: ai-zen's ${commands.length} hooks run ai-zen-daemon`, fix: null },
      namesShim,
    };
  const plural = wrong.length === 1 ? 'hook' : 'hooks';
  const message = `${shown}: ${wrong.length} stale ai-zen ${plural}: ${[...new Set(wrong)].join('; ')}`;
  return { finding: { check: 'hooks', status: 'problem', message, fix }, namesShim };
}

/** The hooks of this repo's Claude Code settings (root null: not in a repo) and of Codex's user file. */
export async function checkHooks(root: string | null, env: Env): Promise<{ findings: Finding[]; namesShim: boolean }> {
  const files: [string, string, string][] = [];
  if (root !== null) {
    files.push([
      path.join(root, '.claude', 'settings.local.json'),
      path.join('.claude', 'settings.local.json'),
      `ai-zen-daemon install-hooks claude (in ${root})`,
    ]);
    files.push([
      path.join(root, '.claude', 'settings.json'),
      path.join('.claude', 'settings.json'),
      `remove ai-zen's hooks from ${path.join(root, '.claude', 'settings.json')} (the shared file), then ai-zen-daemon install-hooks claude (in ${root})`,
    ]);
  }
  files.push([codexHooksPath(env), codexHooksPath(env), 'ai-zen-daemon install-hooks codex --trust']);
  const found = await Promise.all(files.map(([file, shown, fix]) => checkSettingsFile(file, shown, fix, env)));
  return {
    findings: found.map((verdict) => verdict.finding).filter((finding): finding is Finding => finding !== null),
    namesShim: found.some((verdict) => verdict.namesShim),
  };
}
