// S2: before a migration hands the conversation to a successor, a person in a terminal may look at
// the document: continue, open it in $VISUAL/$EDITOR (then choose again), or cancel. Only ever
// offered with a terminal; the automatic path and the daemon never wait for a person (R20).
import { select } from '@inquirer/prompts';
import type { ReviewVerdict } from '../../handoff/migration-service.js';
import type { Env } from '../../paths.js';
import { runInteractive } from '../../run-process.js';

export interface ReviewIo {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly env: Env;
}

type Choice = ReviewVerdict | 'edit';

/** $VISUAL, else $EDITOR, else vi — as git and crontab choose. */
export function editorCommand(env: Env): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/**
 * Runs the editor on the file with the terminal handed off whole; resolves with its exit status.
 * Through `sh -c` so an EDITOR with arguments (`code --wait`) works; the path is a positional
 * argument, never spliced into the command text.
 */
export function runEditor(env: Env, file: string): Promise<number | null> {
  return runInteractive('sh', ['-c', `${editorCommand(env)} "$1"`, 'editor', file], { env });
}

async function ask(io: ReviewIo, path: string): Promise<Choice> {
  try {
    return await select<Choice>(
      {
        message: `Handoff document ${path} is written. Start the new session from it?`,
        choices: [
          { value: 'continue', name: 'Continue — migrate now' },
          { value: 'edit', name: `Open it in ${editorCommand(io.env)} first (then choose again)` },
          { value: 'cancel', name: 'Cancel — keep this session as it is (the document stays)' },
        ],
      },
      { input: io.input, output: io.output },
    );
  } catch (error) {
    // Ctrl-C at the question is a cancel: nothing is dropped without a yes.
    if (error instanceof Error && error.name === 'ExitPromptError') return 'cancel';
    throw error;
  }
}

/** The review hook the migration service calls between "written" and "prune". */
export function terminalReview(io: ReviewIo): (doc: { path: string; absolutePath: string }) => Promise<ReviewVerdict> {
  return async (doc) => {
    for (;;) {
      const choice = await ask(io, doc.path);
      if (choice !== 'edit') return choice;
      const status = await runEditor(io.env, doc.absolutePath);
      if (status !== 0)
        io.output.write(
          `The editor (${editorCommand(io.env)}) ended with ${status === null ? 'an error' : `exit code ${status}`}; the document is as it was left.\n`,
        );
    }
  };
}
