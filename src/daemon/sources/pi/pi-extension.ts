// ai-zen's hooks for pi. pi has no command hooks: it has extensions (TypeScript modules it loads,
// 0.73), whose events map onto ai-zen's — `agent_end` (the agent stopped and waits for the person)
// is Stop, `session_before_compact` is PreCompact, `session_start` is SessionStart. ai-zen's
// extension is a program of its own (hooks/pi/ai-zen-hooks.ts), copied with the hook shim's
// commands to `$AI_ZEN_HOME/pi/ai-zen-hooks.ts` and named in the project's `.pi/settings.json`
// (`extensions`), merged into what is there: uninstall removes that entry and nothing else; the file
// keeps its mode. Its Stop says `scripted` in print mode (`pi -p`), which pi's session file does not.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../../fs/read-regular-file.js';
import { writeFileInside } from '../../../fs/safe-write.js';
import { aiZenHome, bundledPiExtensionPath, type Env } from '../../../paths.js';
import type { AgentHooks, HookEvent } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs, type Json, readSettingsObject } from '../hook-groups.js';
import { withValueAt } from '../kit/settings-entry.js';
import { updateSettingsFile } from '../settings-file.js';

const SETTINGS = path.join('.pi', 'settings.json');
const EXTENSION_NAME = 'ai-zen-hooks.ts';

const isOurs = (entry: unknown): boolean =>
  typeof entry === 'string' && path.basename(entry) === EXTENSION_NAME && path.basename(path.dirname(entry)) === 'pi';

/** pi's extension as shipped, with the hook shim's commands (stable across upgrades) in its one marked line. */
async function piExtensionText(command: (event: HookEvent) => string): Promise<string> {
  const source = await fs.readFile(bundledPiExtensionPath(), 'utf8');
  const commands = { Stop: command('Stop'), PreCompact: command('PreCompact'), SessionStart: command('SessionStart') };
  // A function, not a string: a `$` in a command must not be read as a replacement pattern.
  const text = source.replace(/^const COMMANDS = \{\};.*$/m, () => `const COMMANDS = ${JSON.stringify(commands, null, 2)};`);
  if (text === source) throw new Error(`${bundledPiExtensionPath()} has no line to put the commands in`);
  return text;
}

async function updateProjectSettings(root: string, env: Env, change: (before: Json) => Json): Promise<{ file: string; changed: boolean }> {
  await fs.mkdir(path.join(root, '.pi'), { recursive: true });
  const result = await updateSettingsFile({ root, name: SETTINGS, shown: SETTINGS, env, change });
  return { file: path.join(root, SETTINGS), changed: result.changed };
}

function extensionsOf(settings: Json): unknown[] {
  return Array.isArray(settings.extensions) ? settings.extensions : [];
}

/**
 * The commands of ai-zen's hooks in this project's pi settings: those of the extension they name
 * (its COMMANDS), and an extension named but gone — pi then runs no hook of ours.
 */
async function oursIn(settings: Json): Promise<{ commands: string[]; problems: string[] }> {
  const commands: string[] = [];
  const problems: string[] = [];
  for (const entry of extensionsOf(settings).filter(isOurs) as string[]) {
    // Bounded, a regular file only: the path comes from the project's settings.
    const read = await readRegularFile(entry, EXTENSION_MAX_BYTES);
    if (!read.ok && read.missing) {
      problems.push(`names ai-zen's pi extension ${entry}, which no longer exists`);
      continue;
    }
    const named = read.ok ? COMMANDS.exec(read.bytes.toString('utf8'))?.[1] : undefined;
    try {
      commands.push(...Object.values(JSON.parse(named ?? '') as Record<string, unknown>).filter((command) => typeof command === 'string'));
    } catch {
      problems.push(`${entry} is not the extension install-hooks pi writes`);
    }
  }
  return { commands, problems };
}

/** The commands as piExtensionText puts them in. */
const COMMANDS = /^const COMMANDS = (\{[\s\S]*?\n\});$/m;
/** The extension is a few kilobytes. */
const EXTENSION_MAX_BYTES = 256 * 1024;

export const piHooks: AgentHooks = {
  scope: 'repo',
  async install({ root, env, command }) {
    const home = aiZenHome(env);
    const extension = path.join(home, 'pi', EXTENSION_NAME);
    await fs.mkdir(path.dirname(extension), { recursive: true, mode: 0o700 });
    const text = await piExtensionText(command);
    if ((await fs.readFile(extension, 'utf8').catch(() => null)) !== text)
      await writeFileInside(home, path.relative(home, extension), text, { mode: 0o644 });
    const result = await updateProjectSettings(root, env, (before) => ({
      ...before,
      extensions: [...extensionsOf(before).filter((entry) => !isOurs(entry)), extension],
    }));
    return {
      ...result,
      what: '',
      notes: [`  pi loads ai-zen's extension ${extension} in this project: its Stop (agent_end) lets pi write its own handoff document`],
    };
  },
  async uninstall({ root, env }) {
    const file = path.join(root, SETTINGS);
    const before = await readSettingsObject(file, SETTINGS).catch(() => null);
    if (before === null || !extensionsOf(before).some(isOurs)) return { file, changed: false };
    return updateProjectSettings(root, env, (current) => {
      const kept = extensionsOf(current).filter((entry) => !isOurs(entry));
      return Array.isArray(current.extensions) ? withValueAt(current, ['extensions'], kept.length === 0 ? undefined : kept) : current;
    });
  },
  settingsFiles: ({ root }) =>
    root === null
      ? []
      : [{ file: path.join(root, SETTINGS), shown: SETTINGS, shared: false, format: 'json', syntax: 'json', ours: oursIn }],
  readInput: hookInputAsItIs,
  writeOutput: hookOutputAsItIs,
  mcp: null,
  statusLine: null,
  trust: null,
};

/** Whether this project's pi loads ai-zen's extension (and the extension is there): its Stop lets pi write the document (self). */
export async function piExtensionInstalled(root: string): Promise<boolean> {
  const settings = await readSettingsObject(path.join(root, SETTINGS), SETTINGS).catch(() => null);
  const ours = settings === null ? undefined : extensionsOf(settings).find(isOurs);
  return typeof ours === 'string' && (await fs.stat(ours).catch(() => null))?.isFile() === true;
}
