// ai-zen's hooks in a project's `.claude/settings.local.json` (kit/settings-hooks.ts): Stop,
// PreCompact, SessionStart and UserPromptSubmit, each running `ai-zen-daemon hook claude <event>`, and the one
// permission rule Claude Code needs to let its Write tool create the handoff document without
// asking (taken out again only when ai-zen added it: a rule the user had stays). Doctor also reads
// the shared `.claude/settings.json`, where install never writes: a hook of ours there names this
// machine's paths in a committed file.
import path from 'node:path';
import { CORE_HOOK_EVENTS } from '../agent-hooks.js';
import { CLAUDE_SHAPE, settingsHooks, START_MATCHERS } from '../kit/settings-hooks.js';

export const CLAUDE_LOCAL_SETTINGS = path.join('.claude', 'settings.local.json');
export const ALLOW = ['permissions', 'allow'];
const HANDOFF_PERMISSION = 'Edit(.ai-zen/handoffs/**)';

export const claudeSettings = settingsHooks({
  ...CLAUDE_SHAPE,
  word: 'claude',
  file: CLAUDE_LOCAL_SETTINGS,
  shared: [path.join('.claude', 'settings.json')],
  // UserPromptSubmit: the person back at a session handed off while idle is shown their choice.
  events: [...CORE_HOOK_EVENTS, 'UserPromptSubmit'],
  matchers: START_MATCHERS,
  rule: { at: ALLOW, item: HANDOFF_PERMISSION },
  what: ` (Stop, PreCompact, SessionStart, UserPromptSubmit), and the permission rule ${HANDOFF_PERMISSION} so Claude Code may write its handoff document there`,
});

export const claudeHooksInstalled = (root: string) => claudeSettings.installed({ root, env: {} });
