// ai-zen's hooks for opencode and Kilo Code. They have no command hooks: they load JS plugins, whose
// events map onto ai-zen's (hooks/opencode/ai-zen-hooks.js says how). ai-zen's plugin is a program
// of its own, copied with the hook shim's commands and the client's name to
// `$AI_ZEN_HOME/<app>/ai-zen-hooks.js` and named by its file URL in the project's
// `.<app>/<app>.json` (`plugin`), merged into what is there: uninstall removes that entry and nothing
// else; the file keeps its mode. As pi's extension is installed (pi-extension.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readRegularFile } from '../../../fs/read-regular-file.js';
import { writeFileInside } from '../../../fs/safe-write.js';
import { aiZenHome, bundledOpencodePluginPath, type Env } from '../../../paths.js';
import type { AgentHooks, HookEvent } from '../agent-hooks.js';
import { hookInputAsItIs, hookOutputAsItIs, type Json, readSettingsObject } from '../hook-groups.js';
import { withValueAt } from '../kit/settings-entry.js';
import { settingsFormat, updateSettingsFile } from '../settings-file.js';
import type { SettingsSyntax } from '../settings-jsonc.js';
import type { OpencodeApp } from './opencode-paths.js';

const PLUGIN_NAME = 'ai-zen-hooks.js';
/** opencode (and Kilo, its fork) parse their config with jsonc-parser, trailing commas allowed: so does ai-zen, keeping the user's comments. */
const SYNTAX: SettingsSyntax = 'jsonc';
const SETTINGS_FORMAT = settingsFormat(SYNTAX);
/** The plugin is a few kilobytes. */
const PLUGIN_MAX_BYTES = 256 * 1024;
/** The commands as pluginText puts them in. */
const COMMANDS = /^const COMMANDS = (\{[\s\S]*?\n\});$/m;

function settingsName(app: OpencodeApp): string {
  return path.join(`.${app}`, `${app}.json`);
}

/** The plugin's file, from an entry of `plugin` that is ours (a file URL to `<app>/ai-zen-hooks.js`); null: not ours. */
function ourPlugin(entry: unknown, app: OpencodeApp): string | null {
  if (typeof entry !== 'string' || !entry.startsWith('file://')) return null;
  try {
    const file = fileURLToPath(entry);
    return path.basename(file) === PLUGIN_NAME && path.basename(path.dirname(file)) === app ? file : null;
  } catch {
    return null;
  }
}

function pluginsOf(settings: Json): unknown[] {
  return Array.isArray(settings.plugin) ? settings.plugin : [];
}

/** The plugin as shipped, with the hook shim's commands and the client's name in its two marked lines. */
async function pluginText(app: OpencodeApp, command: (event: HookEvent) => string): Promise<string> {
  const source = await fs.readFile(bundledOpencodePluginPath(), 'utf8');
  const commands = { Stop: command('Stop'), PreCompact: command('PreCompact'), SessionStart: command('SessionStart') };
  // Functions, not strings: a `$` in a command must not be read as a replacement pattern.
  const text = source
    .replace(/^const COMMANDS = \{\};.*$/m, () => `const COMMANDS = ${JSON.stringify(commands, null, 2)};`)
    .replace(/^const APP = 'opencode';.*$/m, () => `const APP = ${JSON.stringify(app)};`);
  if (!COMMANDS.test(text)) throw new Error(`${bundledOpencodePluginPath()} has no line to put the commands in`);
  return text;
}

export function opencodeHooks(app: OpencodeApp): AgentHooks {
  const name = settingsName(app);
  const update = async (root: string, env: Env, change: (before: Json) => Json) => {
    await fs.mkdir(path.join(root, `.${app}`), { recursive: true });
    const result = await updateSettingsFile({ root, name, shown: name, env, change, format: SETTINGS_FORMAT });
    return { file: path.join(root, name), changed: result.changed };
  };
  const oursIn = async (settings: Json): Promise<{ commands: string[]; problems: string[] }> => {
    const commands: string[] = [];
    const problems: string[] = [];
    for (const file of pluginsOf(settings).flatMap((entry) => ourPlugin(entry, app) ?? [])) {
      // Bounded, a regular file only: the path comes from the project's settings.
      const read = await readRegularFile(file, PLUGIN_MAX_BYTES);
      if (!read.ok && read.missing) {
        problems.push(`names ai-zen's ${app} plugin ${file}, which no longer exists`);
        continue;
      }
      const named = read.ok ? COMMANDS.exec(read.bytes.toString('utf8'))?.[1] : undefined;
      try {
        commands.push(
          ...Object.values(JSON.parse(named ?? '') as Record<string, unknown>).filter((command) => typeof command === 'string'),
        );
      } catch {
        problems.push(`${file} is not the plugin install-hooks ${app} writes`);
      }
    }
    return { commands, problems };
  };
  return {
    scope: 'repo',
    async install({ root, env, command }) {
      const home = aiZenHome(env);
      const plugin = path.join(home, app, PLUGIN_NAME);
      await fs.mkdir(path.dirname(plugin), { recursive: true, mode: 0o700 });
      const text = await pluginText(app, command);
      if ((await fs.readFile(plugin, 'utf8').catch(() => null)) !== text)
        await writeFileInside(home, path.relative(home, plugin), text, { mode: 0o644 });
      const result = await update(root, env, (before) => ({
        ...before,
        plugin: [...pluginsOf(before).filter((entry) => ourPlugin(entry, app) === null), pathToFileURL(plugin).href],
      }));
      return {
        ...result,
        what: '',
        notes: [`  ${app} loads ai-zen's plugin ${plugin} in this project: its session.idle lets ${app} write its own handoff document`],
      };
    },
    async uninstall({ root, env }) {
      const file = path.join(root, name);
      const before = await readSettingsObject(file, name, SYNTAX).catch(() => null);
      if (before === null || !pluginsOf(before).some((entry) => ourPlugin(entry, app) !== null)) return { file, changed: false };
      return update(root, env, (current) => {
        const kept = pluginsOf(current).filter((entry) => ourPlugin(entry, app) === null);
        return Array.isArray(current.plugin) ? withValueAt(current, ['plugin'], kept.length === 0 ? undefined : kept) : current;
      });
    },
    settingsFiles: ({ root }) =>
      root === null ? [] : [{ file: path.join(root, name), shown: name, shared: false, format: 'json', syntax: SYNTAX, ours: oursIn }],
    readInput: hookInputAsItIs,
    writeOutput: hookOutputAsItIs,
    mcp: null,
    statusLine: null,
    trust: null,
  };
}

/** Whether this project's client loads ai-zen's plugin (and the plugin is there): its Stop lets it write the document (self). */
export async function opencodePluginInstalled(root: string, app: OpencodeApp): Promise<boolean> {
  const settings = await readSettingsObject(path.join(root, settingsName(app)), settingsName(app), SYNTAX).catch(() => null);
  const ours =
    settings === null
      ? null
      : (pluginsOf(settings)
          .map((entry) => ourPlugin(entry, app))
          .find((file) => file !== null) ?? null);
  return ours !== null && (await fs.stat(ours).catch(() => null))?.isFile() === true;
}
