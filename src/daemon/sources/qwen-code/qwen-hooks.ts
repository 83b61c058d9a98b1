// ai-zen's hooks for Qwen Code in the project's own `.qwen/settings.json` — Qwen's workspace
// settings, whose `hooks` object has Claude Code's shape and events (checked with 0.24.4: Stop,
// PreCompact and SessionStart, the same stdin JSON with `transcript_path`, the same
// `{decision: "block", reason}` answer, timeouts in seconds, the same matchers) — each running
// `ai-zen-daemon hook qwen <event>` (kit/settings-hooks.ts).
import path from 'node:path';
import type { Env } from '../../../paths.js';
import type { HookEvent } from '../agent-hooks.js';
import { CLAUDE_SHAPE, settingsHooks, START_MATCHERS } from '../kit/settings-hooks.js';

// Qwen strips comments before JSON.parse, as Gemini does: comments yes, a trailing comma no.
const qwen = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'qwen',
  file: path.join('.qwen', 'settings.json'),
  syntax: 'json-comments',
  matchers: START_MATCHERS,
});

export const installQwenHooks = (input: { readonly root: string; readonly env: Env; readonly command: (event: HookEvent) => string }) =>
  qwen.hooks.install(input);
export const uninstallQwenHooks = qwen.hooks.uninstall;
/** Where doctor looks for ours: the project's `.qwen/settings.json`. */
export const qwenSettingsFiles = (root: string | null) => qwen.hooks.settingsFiles({ root, env: {} });
/** Our Stop hook is in the project's `.qwen/settings.json`: Qwen will let the session write its own document. */
export const qwenHooksInstalled = (root: string) => qwen.installed({ root, env: {} });
