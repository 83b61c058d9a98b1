// The input line: node:readline with history, opened for one line and closed again, so that no
// other reader (a prompt, the Ctrl-C watcher during a reply) ever shares stdin with it.
// With `status`, a status line stays on the row under the input while the person types.
import readline from 'node:readline';
import { keepStatusBelow } from './status-below.js';

export type LineResult =
  | { readonly kind: 'line'; readonly text: string }
  /** Ctrl-D on an empty line, or the input ended. */
  | { readonly kind: 'eof' }
  /** Ctrl-C; `hadText` when it threw away a half-typed line. */
  | { readonly kind: 'interrupt'; readonly hadText: boolean };

export interface InputHistory {
  /** Newest first, as node:readline keeps it. */
  entries: string[];
}

export const HISTORY_SIZE = 500;

export function readLine(options: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  prompt: string;
  history: InputHistory;
  /** The status line drawn under the input; needs cursor control (a terminal that is not dumb). */
  status?: () => string;
}): Promise<LineResult> {
  const { history } = options;
  return new Promise((resolve) => {
    const rl = readline.createInterface({
      input: options.input,
      output: options.output,
      terminal: true,
      prompt: options.prompt,
      history: [...history.entries],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
    });
    const below = options.status ? keepStatusBelow({ rl, input: options.input, output: options.output, status: options.status }) : null;
    let settled = false;
    const finish = (result: LineResult): void => {
      if (settled) return;
      settled = true;
      below?.stop();
      rl.close();
      resolve(result);
    };
    rl.on('history', (entries: string[]) => {
      history.entries = [...entries];
    });
    // A paste of several lines arrives in one chunk and readline splits it; lines that come in the
    // same tick are one message, not a message and some lost lines.
    const pasted: string[] = [];
    rl.on('line', (text) => {
      // The submitted line stays in the transcript; the status under it goes.
      below?.submitted();
      pasted.push(text);
      if (pasted.length === 1) setImmediate(() => finish({ kind: 'line', text: pasted.join('\n') }));
    });
    rl.on('SIGINT', () => {
      const hadText = rl.line.length > 0;
      // Leave the abandoned line visible, the way shells do, and move on.
      if (below) below.leave(hadText ? '^C' : '');
      else options.output.write(hadText ? '^C\n' : '\n');
      finish({ kind: 'interrupt', hadText });
    });
    rl.on('close', () => {
      if (settled) return;
      if (below) below.leave('');
      else options.output.write('\n');
      finish({ kind: 'eof' });
    });
    rl.prompt();
    below?.draw();
  });
}
