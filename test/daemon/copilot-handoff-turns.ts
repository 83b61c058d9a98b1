// The real Copilot CLI's side of a crossing for the tests at a terminal: a fake model that answers
// by what each request carries, and the person's next prompt once the daemon has judged the crossing.
import { anthropicReply, type AnthropicReplyBuilder, type RecordedAnthropicRequest } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import { briefNamedIn } from '../support/brief-named.js';
import type { TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import type { DaemonRepo } from './daemon-harness.js';

/** The Stop hook's ask names the document's path. */
const ASKED_PATH = /exactly this path \(relative to the repo root\): (\.ai-zen\/handoffs\/\S+\.md)/;

/**
 * The model's side of a session that crosses and hands off, by what each request carries: Copilot
 * writes a turn's usage around its agentStop hook in either order, so the ask for the document comes
 * at the Stop of the crossing turn or of the person's next one.
 */
export function copilotHandoffModel(
  request: string,
  tokens: (percent: number) => number,
  asked: (text: string) => void = () => {},
): {
  /** The five requests of the crossing turn and the handoff turn (the brief read, then the write). */
  readonly replies: ((received: RecordedAnthropicRequest) => AnthropicReplyBuilder)[];
  /** One more, for the person's next turn when the crossing waits for it. */
  readonly another: (received: RecordedAnthropicRequest) => AnthropicReplyBuilder;
} {
  const turns = [
    anthropicReply()
      .tool('bash', { command: 'ls', description: 'look around' })
      .usage({ input_tokens: tokens(30), output_tokens: 20 }),
    anthropicReply()
      .text('The flag parser is in src/cli.ts.')
      .usage({ input_tokens: tokens(72), output_tokens: 50 }),
    anthropicReply()
      .text('The flag goes beside --quiet.')
      .usage({ input_tokens: tokens(73), output_tokens: 20 }),
  ];
  let wrote: 'no' | 'reading' | 'just now' | 'said so' = 'no';
  const reply = (received: RecordedAnthropicRequest): AnthropicReplyBuilder => {
    // The reason names the brief: read first with Copilot's view tool, then the document written from it.
    if (ASKED_PATH.test(received.lastUserText) && wrote === 'no') {
      wrote = 'reading';
      return anthropicReply()
        .tool('view', { path: briefNamedIn(received.lastUserText) })
        .usage({ input_tokens: tokens(73), output_tokens: 20 });
    }
    const docPath = ASKED_PATH.exec(received.allText)?.[1];
    if (docPath && wrote === 'reading') {
      asked(received.allText);
      wrote = 'just now';
      const body = HANDOFF_SECTIONS.map(
        (heading) =>
          `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Copilot itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
      ).join('\n');
      const command = `mkdir -p "$(dirname '${docPath}')" && cat > '${docPath}' <<'AIZEN_DOC'\n# Handoff\n\n${body}AIZEN_DOC`;
      return anthropicReply()
        .tool('bash', { command, description: 'write the handoff document' })
        .usage({ input_tokens: tokens(74), output_tokens: 400 });
    }
    if (wrote === 'just now') {
      wrote = 'said so';
      return anthropicReply()
        .text('The handoff document is written.')
        .usage({ input_tokens: tokens(75), output_tokens: 20 });
    }
    return (
      turns.shift() ??
      anthropicReply()
        .text('nothing more scripted')
        .usage({ input_tokens: tokens(76), output_tokens: 5 })
    );
  };
  return { replies: [reply, reply, reply, reply, reply], another: reply };
}

/**
 * Once the crossing turn's reply is on the screen, the daemon judges the crossing: taken at that
 * turn's own Stop (Copilot wrote the usage line before its agentStop hook), or waiting for the
 * next. Then the person types their next prompt, answered by `answer`'s reply; after a handoff
 * already done they would `/clear` instead, so nothing is typed.
 */
export async function nextTurn(
  daemon: DaemonRepo,
  screen: TmuxSession,
  shown: RegExp,
  text: string,
  answer: () => void,
): Promise<'own Stop' | 'next Stop'> {
  await screen.waitForScreen(shown, { timeoutMs: 60_000 });
  const taken = await waitFor(
    async () => {
      const status = await daemon.status();
      if (status.handoffs.some((entry) => entry.state === 'committed')) return 'own Stop' as const;
      return status.sessions.some((entry) => entry.agent === 'copilot' && /next turn/.test(entry.action ?? ''))
        ? ('next Stop' as const)
        : null;
    },
    { timeoutMs: 60_000, message: 'the crossing judged: handed off, or waiting for the next turn' },
  );
  if (taken === 'own Stop') return taken;
  answer();
  await screen.type(text);
  await screen.waitForScreen(new RegExp(`❯ ${text}`));
  await screen.sendKeys('Enter');
  return taken;
}
