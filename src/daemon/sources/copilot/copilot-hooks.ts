// ai-zen's hooks for GitHub Copilot CLI, in the project's own `.github/copilot/settings.local.json`
// (its `hooks` key; the local file: the commands name this machine's paths, and `install-hooks`
// keeps it out of git). Copilot's hook events in their PascalCase spelling (`Stop`, `PreCompact`,
// `SessionStart`) get Claude Code's input on stdin (`hook_event_name`, `session_id`,
// `transcript_path`, `stop_hook_active`) and take its answer (`{"decision":"block","reason"}` from
// Stop enqueues the reason as the next prompt) — checked with the real client, 1.0.102 — so the
// daemon's answers pass through as they are. Each entry is Copilot's flat shape
// (`{type: "command", bash, timeoutSec}`). Copilot runs a repo's hooks only in a folder the person
// trusted (its first-run prompt, `--trust-folder`, or COPILOT_ALLOW_ALL=true).
import path from 'node:path';
import { CLAUDE_SHAPE, settingsHooks } from '../kit/settings-hooks.js';

const copilot = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'copilot',
  file: path.join('.github', 'copilot', 'settings.local.json'),
  entry: { command: 'bash', timeout: 'timeoutSec' },
  notes: ['  Copilot runs them in a folder you trusted (its first-run question; `copilot --trust-folder` for one -p run)'],
});

export const installCopilotHooks = copilot.hooks.install;
export const uninstallCopilotHooks = copilot.hooks.uninstall;
/** Where doctor looks for ours: this repo's settings.local.json, each entry's `bash`. */
export const copilotSettingsFiles = (root: string | null) => copilot.hooks.settingsFiles({ root, env: {} });
/** Our Stop hook is in this repo's settings.local.json. */
export const copilotHooksInstalled = (root: string) => copilot.installed({ root, env: {} });
