// The CLI edge: builds the commander program from the registered commands, runs it, and turns
// every error into one line on stderr (`ai-zen: …`) and an exit code. The stack goes to the log,
// never to the terminal.
import { Command, CommanderError } from 'commander';
import { AiZenError, describeError } from '../../errors.js';
import { EXIT_ABORTED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../exit-codes.js';
import type { Env } from '../../paths.js';
import type { ProjectExtension } from './open-project.js';
import { visibleText } from './visible-text.js';

export interface CliIo {
  readonly cwd: string;
  readonly env: Env;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
}

/** What every command gets: the process's edges and the project extensions. */
export interface CliSetup {
  readonly io: CliIo;
  readonly extensions: readonly ProjectExtension[];
  /** The chat (terminal UI); when absent, `ai-zen` without -p in a terminal says it is not available. */
  readonly chat?: (options: RootOptions, setup: CliSetup) => Promise<void>;
}

/** Options of the root command, shared by print mode and chat. */
export interface RootOptions {
  readonly print?: string;
  /** `ai-zen "prompt"`: the chat's first message in a terminal, one turn otherwise. */
  readonly prompt?: string;
  readonly continue?: boolean;
  readonly resume?: string;
  readonly model?: string;
  readonly verbose?: boolean;
}

/** Adds a command (or the root action) to the program. */
export type CommandRegistrar = (program: Command, setup: CliSetup) => void;

export interface RunCliOptions {
  readonly registrars: readonly CommandRegistrar[];
  readonly extensions?: readonly ProjectExtension[];
  readonly chat?: CliSetup['chat'];
  readonly io?: CliIo;
  readonly name?: string;
  readonly version?: string;
}

export function processIo(): CliIo {
  return { cwd: process.cwd(), env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Writes and waits until the data is handed to the OS, so an exit right after loses nothing. */
export function writeOut(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

/** Exit code and one line on stderr for any error. */
export async function exitWithError(error: unknown, io: Pick<CliIo, 'stderr'>, name = 'ai-zen'): Promise<number> {
  // No "details in <log>": most commands keep no log, and the repo's may not even be writable.
  const line = visibleText(describeError(error));
  await writeOut(io.stderr, `${name}: ${line}\n`).catch(() => {});
  if (AiZenError.isInstance(error)) return error.code === 'aborted' ? EXIT_ABORTED : error.exitCode;
  return EXIT_FAILURE;
}

/** Runs the CLI to its end; resolves with the exit code and never throws. */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const io = options.io ?? processIo();
  const name = options.name ?? 'ai-zen';
  const setup: CliSetup = { io, extensions: options.extensions ?? [], ...(options.chat ? { chat: options.chat } : {}) };
  const program = new Command(name);
  let usageLine: string | null = null;
  program
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      // Commander's own complaints become our one line.
      writeErr: (text) => {
        usageLine ??=
          text
            .trim()
            .split('\n')[0]
            ?.replace(/^error: /, '') ?? text.trim();
      },
      outputError: (text) => {
        usageLine ??=
          text
            .trim()
            .split('\n')[0]
            ?.replace(/^error: /, '') ?? text.trim();
      },
    })
    .showSuggestionAfterError(true);
  // `-v` too, as `claude -v` and `node -v`; `--verbose` has no short form, so `-v` is never ambiguous.
  if (options.version) program.version(options.version, '-v, --version', 'print the version');
  for (const register of options.registrars) register(program, setup);
  // Commander adds `help` only to a program without a root action; ai-zen has one (print mode,
  // chat), so `ai-zen help` was "too many arguments" while `ai-zen-daemon help` worked.
  program.helpCommand(true);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT_OK; // --help, --version
      const line = usageLine ?? error.message.replace(/^error: /, '');
      await writeOut(io.stderr, `${name}: ${line} (see ${name} --help)\n`).catch(() => {});
      return EXIT_USAGE;
    }
    return exitWithError(error, io, name);
  }
}
