// Print mode: `ai-zen -p "<prompt>"` runs one turn of the tool loop and prints the final answer
// — and nothing else — on stdout. Also the root action: without -p, a terminal gets the chat and
// a pipe is read as the prompt (R20: scripts never wait for input). `ai-zen "<prompt>"` is what
// `claude "…"` and `codex "…"` are: a chat that starts with it in a terminal, one
// turn otherwise.
import type { Command } from 'commander';
import { AiZenError } from '../../errors.js';
import { startDaemonAlongside } from '../shared/daemon-autostart.js';
import { openProject, type OpenProject } from '../shared/open-project.js';
import { writeOut, type CliSetup, type RootOptions } from '../shared/run-cli.js';

export function registerPrintCommand(program: Command, setup: CliSetup): void {
  program
    .description('An AI coding agent that hands its work over safely when its context window fills up.')
    .option('-p, --print <prompt>', 'run one turn with this prompt and print only the final answer')
    .option('-c, --continue', 'carry on the latest session of this project')
    .option('-r, --resume <id>', 'carry on the session with this id')
    .option('-m, --model <name>', 'model to use (overrides AI_ZEN_MODEL and config files)')
    .option('--verbose', 'also write the log to stderr')
    .argument('[prompt]', 'start with this prompt: the chat in a terminal, one turn (as -p) otherwise')
    .action(async (prompt: string | undefined, flags: RootOptions) => {
      if (prompt !== undefined && flags.print !== undefined)
        throw new AiZenError('usage', 'give the prompt once: -p "<prompt>" or "<prompt>"');
      if (prompt !== undefined && prompt.trim() === '') throw new AiZenError('usage', 'the prompt is empty');
      const options: RootOptions = prompt !== undefined ? { ...flags, prompt } : flags;
      if (options.print !== undefined) return runPrint(options.print, options, setup);
      // Without a terminal on both ends a prompt is one turn; stdin is not read (it may never end).
      if (prompt !== undefined && !(setup.io.stdin.isTTY && setup.io.stdout.isTTY)) return runPrint(prompt, options, setup);
      if (setup.io.stdin.isTTY) {
        if (setup.chat) return setup.chat(options, setup);
        throw new AiZenError('usage', 'the interactive chat is not available yet; use -p "<prompt>"');
      }
      const piped = (await readAll(setup.io.stdin)).trim();
      if (piped === '') throw new AiZenError('usage', 'no prompt: use -p "<prompt>" or pipe one on stdin');
      return runPrint(piped, options, setup);
    });
}

export async function runPrint(prompt: string, options: RootOptions, setup: CliSetup): Promise<void> {
  if (prompt.trim() === '') throw new AiZenError('usage', 'the prompt is empty');
  const project = await openProject({
    cwd: setup.io.cwd,
    env: setup.io.env,
    stderr: setup.io.stderr,
    continueLatest: options.continue === true,
    ...(options.resume !== undefined ? { resumeId: options.resume } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    verbose: options.verbose === true,
    requireModel: true,
    extensions: setup.extensions,
    interactive: false,
  });
  // An enabled repo's daemon comes up with this session, never holding the turn up.
  const daemonStart = startDaemonAlongside(project.root, setup.io.env, project.logger);
  const stopOnSignal = onInterrupt(project);
  try {
    const result = await project.agent.send(prompt);
    const text = result.text.endsWith('\n') || result.text === '' ? result.text : `${result.text}\n`;
    await writeOut(setup.io.stdout, text);
    project.logger.info({ sessionId: project.context.currentId, requests: result.requests, usage: result.usage }, 'print turn done');
    await project.afterTurn(result);
  } catch (error) {
    project.logger.error({ err: error, sessionId: project.context.currentId }, 'print turn failed');
    throw error;
  } finally {
    stopOnSignal();
    await daemonStart;
    await project.close();
  }
}

/** Ctrl-C aborts the in-flight request (the session stays whole); a second one leaves at once. */
function onInterrupt(project: OpenProject): () => void {
  let count = 0;
  const handler = (): void => {
    count += 1;
    if (count > 1) process.exit(130);
    project.agent.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}
