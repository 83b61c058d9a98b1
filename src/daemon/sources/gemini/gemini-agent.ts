// Gemini CLI as an agent ai-zen watches (agent-module.ts, issue 24): its sessions (gemini-source.ts),
// its hooks in the project's `.gemini/settings.json` (gemini-hooks.ts), `gemini --resume <id>` to
// reopen a session whole, and `gemini -i "<prompt>"` to continue in it from a handoff document.
import type { AgentModule } from '../agent-module.js';
import { geminiHooks } from './gemini-hooks.js';
import { createGeminiSource } from './gemini-source.js';

export const geminiAgent: AgentModule = {
  name: 'gemini',
  label: 'Gemini CLI',
  word: 'gemini',
  createSource: createGeminiSource,
  resumeCommand: (sessionId) => `gemini --resume ${sessionId}`,
  // `-i`: the first prompt, then the interactive session (a bare prompt runs headless when stdin is no terminal).
  startArgs: (prompt, clientArgs) => [...clientArgs, '-i', prompt],
  hooks: geminiHooks,
};
