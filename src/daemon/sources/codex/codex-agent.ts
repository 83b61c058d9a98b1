// Codex CLI as an agent ai-zen watches (agent-module.ts). Its hooks, their trust and its MCP entry
// are installed by `install-hooks codex` itself (cli/daemon-agent-hooks.ts), which predates the seam.
import type { AgentModule } from '../agent-module.js';
import { createCodexSessionSource } from './codex-source.js';

export const codexAgent: AgentModule = {
  name: 'codex',
  label: 'Codex',
  word: 'codex',
  createSource: (context) =>
    createCodexSessionSource({
      root: context.root,
      env: context.env,
      agent: context.config,
      ...(context.learned ? { learned: context.learned } : {}),
    }),
  resumeCommand: (sessionId) => `codex resume ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
};
