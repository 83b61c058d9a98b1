// The real opencode (`opencode-ai` 1.x), run offline as opencode-like-client.ts runs it.
// Not a dependency of ai-zen: importing this module installs the pinned client on first use.
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';
import { answerTitles, clientEnv, makeClientHome, type OpencodeHome, type OpencodeLikeClient } from './opencode-like-client.js';
import { startTmux, type TmuxSession } from './tmux.js';

const pin = agentClientPin('opencode');
await ensureAgentClient(pin);
/** The `opencode` binary (what the `opencode` of `opencode-ai` runs on linux-x64). */
export const OPENCODE_BIN = path.join(installedPackage(pin), 'bin', 'opencode');
export const OPENCODE: OpencodeLikeClient = {
  app: 'opencode',
  name: 'opencode',
  bin: OPENCODE_BIN,
  runTimeoutMs: 90_000,
  testTimeoutMs: 180_000,
  // It sends the model a person's prompt as typed.
  typedIn: (promptText) => promptText,
};

export { answerTitles, clientEnv as opencodeEnv };

/** A temp HOME whose global `opencode.json` points opencode at the fake server, with the model's window. */
export function makeOpencodeHome(
  base: string,
  options: { readonly baseURL: string; readonly context: number; readonly output?: number },
): Promise<OpencodeHome> {
  return makeClientHome(OPENCODE, base, options);
}

/**
 * `opencode` as a person runs it: its TUI at a terminal (tmux) in `cwd`, the prompt box empty. Colours
 * on (opencode's TUI draws its frames with them), the rest of its environment as opencodeEnv says.
 */
export async function startInteractiveOpencode(options: {
  readonly cwd: string;
  readonly home: OpencodeHome;
  readonly env?: Readonly<Record<string, string>>;
}): Promise<TmuxSession> {
  const terminal = await startTmux({
    command: [OPENCODE_BIN],
    cwd: options.cwd,
    env: { ...clientEnv(options.home, options.env), NO_COLOR: undefined, TERM: 'xterm-256color' },
    width: 140,
    height: 50,
  });
  // Its home screen, the prompt box ready for typing.
  await terminal.waitForScreen(/Ask anything/, { timeoutMs: 60_000 });
  return terminal;
}
