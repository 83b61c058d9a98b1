// Issue 23 §3: `ai-zen-daemon mcp` registered for Codex by `install-hooks codex`, as
// `[mcp_servers.ai-zen]` in the user's `${CODEX_HOME:-~/.codex}/config.toml` — the user's file, like
// the hooks (codex-hooks.ts): one entry serves every repo, and in each the server reads that repo.
// Written as a block between two comment lines of ours, so uninstall takes exactly it away and
// nothing of the user's; a table of the user's named ai-zen is never replaced. Codex starts an MCP
// server with a few variables only: `env_vars` passes on the ones that say where ai-zen and the
// agents keep their files (a test's, or a user's who moved them).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { AiZenError } from '../../../errors.js';
import { NotRegularFileError, readRegularText } from '../../../fs/open-regular-file.js';
import { writeFileInside } from '../../../fs/safe-write.js';
import { codexHomeFolder, type Env } from '../../../paths.js';

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

async function readConfig(env: Env): Promise<{ text: string; mode: number }> {
  const file = codexConfigPath(env);
  const text = await readRegularText(file, { follow: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    if (NotRegularFileError.isInstance(error))
      throw new AiZenError('config', `${file} is ${error.what}, not a regular file; nothing was changed`, { cause: error });
    throw error;
  });
  const mode = await fs.stat(file).then(
    (stat) => stat.mode & 0o777,
    () => 0o600,
  );
  return { text, mode };
}

export async function installCodexMcp(shim: string, env: Env): Promise<{ file: string; changed: boolean; taken: boolean }> {
  const file = codexConfigPath(env);
  const { text, mode } = await readConfig(env);
  const ours = withoutBlock(text);
  if (TABLE.test(ours)) return { file, changed: false, taken: true };
  const next = `${ours}${ours === '' || ours.endsWith('\n') ? '' : '\n'}${ours === '' ? '' : '\n'}${block(shim)}`;
  if (next === text) return { file, changed: false, taken: false };
  await fs.mkdir(codexHomeFolder(env), { recursive: true });
  await writeFileInside(codexHomeFolder(env), CONFIG, next, { mode });
  return { file, changed: true, taken: false };
}

export async function uninstallCodexMcp(env: Env): Promise<{ file: string; changed: boolean }> {
  const file = codexConfigPath(env);
  const { text, mode } = await readConfig(env);
  const next = withoutBlock(text);
  if (next === text) return { file, changed: false };
  await writeFileInside(codexHomeFolder(env), CONFIG, next, { mode });
  return { file, changed: true };
}
