// ai-zen's hooks for Codex CLI, in the user's `${CODEX_HOME:-~/.codex}/hooks.json` — Codex's own
// file for command hooks, in the same shape as Claude Code's — : Stop, PreCompact and SessionStart,
// each running `ai-zen-daemon hook codex <event>` (kit/settings-hooks.ts). The user's file and not
// the project's `.codex/hooks.json`, because Codex reads a project's hooks only in a project the
// user has trusted, the file would sit in the repo with this machine's paths in it, and each repo's
// hooks would need their own trust; in the user's file one trust covers every repo, and in a repo
// without a running daemon the hook prints nothing. Neither install nor uninstall moves a hook of
// the user's (Codex would call it modified and skip it).
//
// Codex runs a hook only once the user trusted it (checked with 0.171: an untrusted hook is skipped
// without a word): `/hooks` in the Codex TUI, or `install-hooks codex --trust` (codex-hook-trust.ts).
import path from 'node:path';
import { codexHomeFolder, type Env } from '../../../paths.js';
import { ourHookMark } from '../hook-groups.js';
import { CLAUDE_SHAPE, settingsHooks } from '../kit/settings-hooks.js';

export const codexSettings = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'codex',
  home: codexHomeFolder,
  file: 'hooks.json',
  // Codex keeps a hook's trust by its place.
  keepPositions: true,
  what: ' (Stop, PreCompact, SessionStart), for Codex sessions in every repo (in a repo without a running daemon they do nothing)',
});

/** What marks a hook command as ours. */
export const isOurCodexHook = ourHookMark('codex');

export const codexHooksPath = (env: Env): string => path.join(codexHomeFolder(env), 'hooks.json');

/** Our Stop hook is in the user's hooks.json (whether Codex trusts it is another matter). */
export const codexHooksInstalled = (env: Env) => codexSettings.installed({ root: null, env });
