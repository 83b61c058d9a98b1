// Claude Code as an agent ai-zen watches (agent-module.ts). Its hooks, statusline and MCP entry are
// installed by `install-hooks claude` itself (cli/daemon-agent-hooks.ts), which predates the seam.
import type { AgentModule } from '../agent-module.js';
import { createClaudeCodeSource } from './claude-source.js';

export const claudeAgent: AgentModule = {
  name: 'claude-code',
  label: 'Claude Code',
  word: 'claude',
  createSource: (context) => createClaudeCodeSource(context),
  resumeCommand: (sessionId) => `claude --resume ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
};
