// Issue 23 §3: `ai-zen-daemon mcp` registered for Codex by `install-hooks codex`, as
// `[mcp_servers.ai-zen]` in the user's `${CODEX_HOME:-~/.codex}/config.toml` — the user's file, like
// the hooks (codex-hooks.ts): one entry serves every repo, and in each the server reads that repo.
// Written as a block between two comment lines of ours, so uninstall takes exactly it away and
// nothing of the user's; a table of the user's named ai-zen is never replaced. Codex starts an MCP
// server with a few variables only: `env_vars` passes on the ones that say where ai-zen and the
// agents keep their files (a test's, or a user's who moved them). Written with the same
// compare-and-swap as the agents' JSON settings (settings-file.ts): Codex writes this file itself.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { AiZenError } from '../../../errors.js';
import { codexHomeFolder, type Env } from '../../../paths.js';
import { updateSettingsFile } from '../settings-file.js';
import { loadToml, type ParseToml, tomlText } from '../settings-toml.js';

const CONFIG = 'config.toml';
const BEGIN = '# >>> ai-zen: its MCP server (ai-zen-daemon install-hooks codex; uninstall-hooks codex removes this block)';
const END = '# <<< ai-zen';
const TABLE = /^\s*\[\s*mcp_servers\s*\.\s*(?:ai-zen|"ai-zen"|'ai-zen')\s*\]/m;
const PASSED_ON = ['AI_ZEN_HOME', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'XDG_RUNTIME_DIR'];

export function codexConfigPath(env: Env): string {
  return path.join(codexHomeFolder(env), CONFIG);
}

function block(shim: string): string {
  return [
    BEGIN,
    '[mcp_servers.ai-zen]',
    `command = ${JSON.stringify(shim)}`,
    'args = ["mcp"]',
    `env_vars = ${JSON.stringify(PASSED_ON)}`,
    END,
    '',
  ].join('\n');
}

function withoutBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start < 0) return text;
  const end = text.indexOf(END, start);
  if (end < 0) return text;
  let after = end + END.length;
  if (text[after] === '\n') after += 1;
  // Codex appends tables of its own at the end of the file — the trust of the user's hooks,
  // `[hooks.state."…"]` — so after our table and before our closing line: only our table goes, what
  // Codex put in the block stays (else uninstall-hooks codex took the user's hook trust along; issue 22 §7).
  const kept: string[] = [];
  let ours = false;
  for (const line of text.slice(start + BEGIN.length, end).split('\n')) {
    if (/^\s*\[/.test(line)) ours = TABLE.test(line);
    if (!ours) kept.push(line);
  }
  const theirs = kept.join('\n').replace(/^\n+|\n+$/g, '');
  // The blank line install put before the block goes too.
  const before = text.slice(0, start).replace(/\n\n$/, '\n');
  return before + (theirs === '' ? '' : `${theirs}\n`) + text.slice(after);
}

/** Whether the text (TOML the format has read) has an MCP server named ai-zen outside our block: the user's. */
function theirServer(text: string, parse: ParseToml): boolean {
  const servers = parse(withoutBlock(text)).mcp_servers;
  return typeof servers === 'object' && servers !== null && Object.hasOwn(servers, 'ai-zen');
}

function withBlock(text: string, shim: string): string {
  const ours = withoutBlock(text);
  return `${ours}${ours === '' || ours.endsWith('\n') ? '' : '\n'}${ours === '' ? '' : '\n'}${block(shim)}`;
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

export async function installCodexMcp(shim: string, env: Env): Promise<{ file: string; changed: boolean; taken: boolean }> {
  const file = codexConfigPath(env);
  const parse = await loadToml();
  await fs.mkdir(codexHomeFolder(env), { recursive: true });
  let taken = false;
  const result = await updateSettingsFile({
    root: codexHomeFolder(env),
    name: CONFIG,
    shown: file,
    env,
    format: tomlText(parse),
    change: (before) => {
      const text = String(before.text);
      // A server of the user's named ai-zen is theirs: it stays, and install says so.
      taken = theirServer(text, parse);
      if (taken) return before;
      const next = withBlock(text, shim);
      try {
        parse(next);
      } catch (error) {
        // An inline `mcp_servers = { … }` of the user's cannot take a table of ours.
        throw new AiZenError(
          'config',
          `${file}: ai-zen's [mcp_servers.ai-zen] cannot be added to its mcp_servers; add it by hand (nothing was changed)`,
          {
            cause: error,
          },
        );
      }
      return { text: next };
    },
  });
  return { file, changed: result.changed, taken };
}

export async function uninstallCodexMcp(env: Env): Promise<{ file: string; changed: boolean }> {
  const file = codexConfigPath(env);
  if (!(await exists(file))) return { file, changed: false };
  const result = await updateSettingsFile({
    root: codexHomeFolder(env),
    name: CONFIG,
    shown: file,
    env,
    format: tomlText(await loadToml()),
    change: (before) => ({ text: withoutBlock(String(before.text)) }),
  });
  return { file, changed: result.changed };
}
