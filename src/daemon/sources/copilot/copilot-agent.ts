// GitHub Copilot CLI as an agent ai-zen watches (agent-module.ts): `install-hooks copilot`,
// `continue --in copilot`, `hook copilot <event>`. Its hooks take Claude Code's input and answer
// as they are (copilot-hooks.ts), so no translation is needed either way.
import type { AgentModule } from '../agent-module.js';
import { installCopilotHooks, uninstallCopilotHooks } from './copilot-hooks.js';
import { createCopilotSessionSource } from './copilot-source.js';

export const copilotAgent: AgentModule = {
  name: 'copilot',
  label: 'GitHub Copilot CLI',
  word: 'copilot',
  createSource: createCopilotSessionSource,
  resumeCommand: (sessionId) => `copilot --resume=${sessionId}`,
  // `-i`: an interactive session that starts with the prompt (`-p` in clientArgs runs it as a script).
  startArgs: (prompt, clientArgs) =>
    clientArgs.includes('-p') || clientArgs.includes('--prompt') ? [...clientArgs, prompt] : [...clientArgs, '-i', prompt],
  hooks: { install: installCopilotHooks, uninstall: uninstallCopilotHooks },
};
