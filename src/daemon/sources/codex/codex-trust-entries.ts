// The trust Codex keeps for ai-zen's hooks (`[hooks.state."<hooks.json>:<event>:<group>:<hook>"]` in
// config.toml, written by `install-hooks codex --trust` or by the user's /hooks), taken out with the
// hooks: Codex keys a hook's trust by its place, so the keys are read from hooks.json before ours go.
import path from 'node:path';
import { codexHomeFolder, type Env } from '../../../paths.js';
import { ourHookMark, readSettingsObject } from '../hook-groups.js';
import { fileExists } from '../kit/settings-entry.js';
import { updateSettingsFile } from '../settings-file.js';
import { loadToml, tomlText } from '../settings-toml.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Codex's name for an event in a trust key: Stop is stop, PreCompact pre_compact. */
const snake = (event: string) => event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

/** The trust keys of ai-zen's hooks as they sit in the user's hooks.json now. */
export async function ourTrustKeys(env: Env): Promise<string[]> {
  const file = path.resolve(codexHomeFolder(env), 'hooks.json');
  const hooks = (await readSettingsObject(file).catch(() => null))?.hooks;
  if (!isObject(hooks)) return [];
  const isOurs = ourHookMark('codex');
  const keys: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, groupIndex) => {
      const inner = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
      inner.forEach((hook: unknown, hookIndex) => {
        if (isObject(hook) && typeof hook.command === 'string' && isOurs(hook.command))
          keys.push(`${file}:${snake(event)}:${groupIndex}:${hookIndex}`);
      });
    });
  }
  return keys;
}

/** config.toml without the trust tables of those keys (each table from its header to the next one); whether it changed. */
export async function forgetTrust(env: Env, keys: readonly string[]): Promise<boolean> {
  const home = codexHomeFolder(env);
  const file = path.join(home, 'config.toml');
  if (keys.length === 0 || !(await fileExists(file))) return false;
  const headers = new Set(keys.map((key) => `[hooks.state.${JSON.stringify(key)}]`));
  const format = tomlText(await loadToml());
  const change = (before: Record<string, unknown>) => ({ text: withoutTables(String(before.text), headers) });
  return (await updateSettingsFile({ root: home, name: 'config.toml', shown: file, env, format, change })).changed;
}

function withoutTables(text: string, headers: ReadonlySet<string>): string {
  let skipping = false;
  const kept = text.split('\n').filter((line) => {
    const trimmed = line.trim();
    if (trimmed.startsWith('[')) skipping = headers.has(trimmed);
    return !skipping;
  });
  // Codex writes the parent `[hooks.state]` too: left with no key and no table under it, it goes (then `[hooks]` likewise).
  return withoutEmptyTable(withoutEmptyTable(kept, 'hooks.state'), 'hooks').join('\n');
}

function withoutEmptyTable(lines: readonly string[], name: string): string[] {
  const at = lines.findIndex((line) => line.trim() === `[${name}]`);
  if (at < 0 || lines.some((line) => line.trim().startsWith(`[${name}.`))) return [...lines];
  const body = lines.slice(at + 1);
  const next = body.findIndex((line) => line.trim().startsWith('['));
  const hasKeys = (next < 0 ? body : body.slice(0, next)).some((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  return hasKeys ? [...lines] : lines.filter((_, index) => index !== at);
}
