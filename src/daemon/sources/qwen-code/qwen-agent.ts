// Qwen Code (`@qwen-code/qwen-code`, the `qwen` command) as an agent ai-zen watches (X3, issue 24;
// agent-module.ts): its sessions (qwen-source.ts), `qwen --resume <id>` to reopen one whole, a
// fresh `qwen -i "<prompt>"` to continue from a document (the session stays interactive after
// that first prompt), and its Claude-shaped hooks in the project's `.qwen/settings.json`.
import type { AgentModule } from '../agent-module.js';
import { readQwenHookInput } from './qwen-hook-input.js';
import { installQwenHooks, uninstallQwenHooks } from './qwen-hooks.js';
import { createQwenCodeSource } from './qwen-source.js';

export const qwenAgent: AgentModule = {
  name: 'qwen-code',
  label: 'Qwen Code',
  word: 'qwen',
  createSource: createQwenCodeSource,
  resumeCommand: (sessionId) => `qwen --resume ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, '-i', prompt],
  hooks: { install: installQwenHooks, uninstall: uninstallQwenHooks, readInput: (raw) => readQwenHookInput(raw) },
};
