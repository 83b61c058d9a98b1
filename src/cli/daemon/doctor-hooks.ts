// `doctor`'s look at every agent's hook settings, each file where the agent's hooks
// say ours may be (agent-hooks.ts): each ai-zen hook must run the stable shim
// ($AI_ZEN_HOME/bin/ai-zen-daemon) or an `ai-zen-daemon` found on the PATH. A hook that names a
// checkout's script breaks when that checkout moves, and one naming a path that is gone already
// did break — silently, since a hook never fails its agent.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { AgentHooks, HookSettingsFile, OurHooks } from '../../daemon/sources/agent-hooks.js';
import { parseSettingsObject } from '../../daemon/sources/hook-groups.js';
import { approvedMcpProblem } from '../../daemon/sources/claude-code/claude-mcp.js';
import { AGENT_MODULES } from '../../daemon/sources/index.js';
import { describeError } from '../../errors.js';
import { NotRegularFileError, readRegularText } from '../../fs/open-regular-file.js';
import { hookShimPath, type Env } from '../../paths.js';
import type { Finding } from './doctor-finding.js';
import { readInstalledHooks, recordHookCommands } from './installed-hooks-record.js';

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

/** The commands of ai-zen's hooks in one settings file as it is now (none: no file, or not one ai-zen can read). */
async function ourCommandsIn(place: HookSettingsFile): Promise<readonly string[]> {
  const text = await readRegularText(place.file, { follow: true }).catch(() => null);
  if (text === null) return [];
  try {
    return (await oursIn(place, text)).commands;
  } catch {
    return [];
  }
}

/** Ours in a place's text: a settings file parsed as its agent reads it (a bad one throws), a hook script as it is. */
async function oursIn(place: HookSettingsFile, text: string): Promise<OurHooks> {
  return place.format === 'script' ? place.ours(text) : place.ours(parseSettingsObject(text, place.shown, place.syntax));
}

/** What install-hooks just wrote as ai-zen's hooks, for doctor to compare with later. */
export async function recordInstalledHooks(places: readonly HookSettingsFile[], env: Env): Promise<void> {
  for (const place of places) if (!place.shared) await recordHookCommands(env, place.file, await ourCommandsIn(place));
}

async function checkSettingsFile(
  place: HookSettingsFile,
  fix: string,
  env: Env,
  recorded: readonly string[] | undefined,
): Promise<FileVerdict> {
  const { file, shown } = place;
  // A regular file only: a repo's settings path may hold anything, and a FIFO would hang doctor.
  const text = await readRegularText(file, { follow: true }).catch((error: unknown) =>
    NotRegularFileError.isInstance(error) ? error : null,
  );
  if (text === null) return { finding: null, namesShim: false };
  if (typeof text !== 'string')
    return {
      finding: { check: 'hooks', status: 'problem', message: `${shown} is ${text.what}, not a regular file`, fix: `fix ${file} by hand` },
      namesShim: false,
    };
  let ours: OurHooks;
  try {
    ours = await oursIn(place, text);
  } catch (error) {
    return { finding: { check: 'hooks', status: 'problem', message: describeError(error), fix: `fix ${file} by hand` }, namesShim: false };
  }
  const { commands, problems } = ours;
  // What install-hooks wrote and is no longer there as written: edited by another program (a worm's payload
  // before or after ours), so the hook no longer reads as ours, or reads as ours and runs more.
  const gone = recorded === undefined ? [] : recorded.filter((command) => !commands.includes(command));
  if (commands.length === 0 && problems.length === 0 && gone.length === 0) return { finding: null, namesShim: false };
  const namesShim = commands.some((command) => shellWords(command, 1)[0] === hookShimPath(env));
  const verdicts = await Promise.all(commands.map(async (command) => ({ command, why: await whatIsWrong(command, env) })));
  const wrong = [...problems, ...verdicts.map((verdict) => verdict.why).filter((why): why is string => why !== null)];
  if (wrong.length > 0) {
    const plural = wrong.length === 1 ? 'hook' : 'hooks';
    const message = `${shown}: ${wrong.length} stale ai-zen ${plural}: ${[...new Set(wrong)].join('; ')}`;
    return { finding: { check: 'hooks', status: 'problem', message, fix }, namesShim };
  }
  const added = recorded === undefined ? [] : commands.filter((command) => !recorded.includes(command));
  if (added.length > 0 || gone.length > 0) {
    const changes = [
      ...added.map((command) => `now ${JSON.stringify(command)}`),
      ...gone.map((command) => `${JSON.stringify(command)} is gone`),
    ];
    return {
      finding: {
        check: 'hooks',
        status: 'problem',
        message: `${shown}: ai-zen's hooks changed since install-hooks wrote them: ${changes.join('; ')}`,
        fix: `if you did not change them, something on this machine did: remove them, then ${fix}`,
      },
      namesShim,
    };
  }
  return {
    finding: {
      check: 'hooks',
      status: 'ok',
      message: `${shown}: ${commands.length === 1 ? "ai-zen's hook runs" : `ai-zen's ${commands.length} hooks run`} ai-zen-daemon`,
      fix: null,
    },
    namesShim,
  };
}

/** The one line that puts ours right in a file: install again (the shared file: take ours out of it first). */
function fixFor(word: string, hooks: AgentHooks, place: HookSettingsFile, root: string | null): string {
  const install = `ai-zen-daemon install-hooks ${word}${hooks.trust ? ' --trust' : ''}${hooks.scope === 'repo' && root !== null ? ` (in ${root})` : ''}`;
  return place.shared ? `remove ai-zen's hooks from ${place.file} (the shared file), then ${install}` : install;
}

/** The hook settings of every agent of the list: this repo's files (root null: not in a repo) and the user's. */
export async function checkHooks(root: string | null, env: Env): Promise<{ findings: Finding[]; namesShim: boolean }> {
  const places = AGENT_MODULES.flatMap((agent) =>
    agent.hooks
      ? agent.hooks.settingsFiles({ root, env }).map((place) => ({ place, fix: fixFor(agent.word, agent.hooks!, place, root) }))
      : [],
  );
  const recorded = (await readInstalledHooks(env))?.files ?? {};
  const found = await Promise.all(places.map(({ place, fix }) => checkSettingsFile(place, fix, env, recorded[place.file])));
  // The MCP server Claude Code starts by its approved name must still be ai-zen's.
  const mcp = root === null ? null : await approvedMcpProblem(root, env);
  const mcpFinding: Finding[] = mcp
    ? [
        {
          check: 'hooks',
          status: 'problem',
          message: mcp,
          fix: `unless that server is yours, remove it from ${root}/.mcp.json and "ai-zen" from enabledMcpjsonServers in .claude/settings.local.json, then ai-zen-daemon install-hooks claude`,
        },
      ]
    : [];
  return {
    findings: [...found.map((verdict) => verdict.finding).filter((finding): finding is Finding => finding !== null), ...mcpFinding],
    namesShim: found.some((verdict) => verdict.namesShim),
  };
}
