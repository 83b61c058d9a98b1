// The real Claude Code CLI at a terminal (a private tmux server, test/support/tmux.ts), as a person
// runs it: `claude "<prompt>"` — its transcript says `entrypoint: "cli"`, where `claude -p` says
// "sdk-cli" (ai-zen tells the two apart). Offline as runClaude: the fake Anthropic server, a
// temp HOME; its first-run questions (onboarding, trusting the folder, the API key) answered in
// its config file beforehand.
import { promises as fs } from 'node:fs';
import { CLAUDE_BIN, type ClaudeHome } from './claude-client.js';
import { startTmux, type TmuxSession } from './tmux.js';

export interface InteractiveClaudeOptions {
  readonly cwd: string;
  readonly home: ClaudeHome;
  readonly baseURL: string;
  readonly env?: Record<string, string>;
  readonly args?: readonly string[];
}

export async function startInteractiveClaude(prompt: string, options: InteractiveClaudeOptions): Promise<TmuxSession> {
  const key = 'test';
  await fs.writeFile(
    `${options.home.configDir}/.claude.json`,
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      projects: { [options.cwd]: { hasTrustDialogAccepted: true } },
      // Claude asks once whether to use an API key from the environment; the answer is its last 20 characters.
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
    }),
  );
  return startTmux({
    // The default permission mode, as `claude -p` has it (auto mode would ask a model about each tool call).
    command: [CLAUDE_BIN, '--permission-mode', 'default', ...(options.args ?? []), '--', prompt],
    cwd: options.cwd,
    env: {
      HOME: options.home.home,
      ...options.home.env,
      ANTHROPIC_BASE_URL: options.baseURL,
      ANTHROPIC_API_KEY: key,
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...options.env,
    },
    width: 140,
    height: 50,
  });
}
