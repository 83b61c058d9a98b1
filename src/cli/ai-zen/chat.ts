// `ai-zen` with no arguments: in a terminal, the chat; when stdin or stdout is not a terminal
// (a pipe, a redirect, a script), print mode with the whole of stdin as the prompt — no prompts,
// no colours, auto-migration silent (R20).
import type { AutoMigrateChooser } from '../../handoff/auto-migrate.js';
import { AiZenError } from '../../errors.js';
import type { ExecutorName } from '../../session/format.js';
import { ChatSession } from './chat/chat-session.js';
import { colorsWanted, createStyle } from './chat/style.js';
import { startDaemonAlongside } from '../shared/daemon-autostart.js';
import { projectHandoff, type ProjectHandoff } from './handoff-extension.js';
import { openProject, type OpenProject } from '../shared/open-project.js';
import { runPrint } from './print.js';
import type { CliSetup, RootOptions } from '../shared/run-cli.js';

const chats = new WeakMap<OpenProject, ChatSession>();

function isTerminal(stream: { isTTY?: boolean }): boolean {
  return stream.isTTY === true;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}

/** The root action without -p. */
export async function runChat(options: RootOptions, setup: CliSetup): Promise<void> {
  const { io } = setup;
  if (!isTerminal(io.stdin) || !isTerminal(io.stdout)) {
    if (options.prompt !== undefined) return runPrint(options.prompt, options, setup);
    const prompt = (await readAll(io.stdin)).trim();
    if (prompt === '') throw new AiZenError('usage', 'no prompt: use -p "<prompt>" or pipe one on stdin');
    return runPrint(prompt, options, setup);
  }
  const input = io.stdin as NodeJS.ReadStream;
  const output = io.stdout as NodeJS.WriteStream;
  const project = await openProject({
    cwd: io.cwd,
    env: io.env,
    stderr: io.stderr,
    continueLatest: options.continue === true,
    ...(options.resume !== undefined ? { resumeId: options.resume } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    verbose: options.verbose === true,
    extensions: setup.extensions,
    interactive: true,
  });
  // An enabled repo's daemon comes up with the chat, alongside it: the chat does not wait.
  const daemonStart = startDaemonAlongside(project.root, io.env, project.logger);
  try {
    let handoff: ProjectHandoff | null = null;
    try {
      handoff = projectHandoff(project);
    } catch {
      project.logger.warn('chat: the handoff extension is not installed; /handoff and /migrate are off');
    }
    // TERM=dumb: node:readline does not move the cursor there, and neither does the status line.
    const cursorControl = io.env.TERM !== 'dumb';
    const chat = new ChatSession(project, handoff, {
      input,
      output,
      style: createStyle(colorsWanted(output, io.env)),
      cursorControl,
      env: io.env as NodeJS.ProcessEnv,
      ...(options.prompt !== undefined ? { firstMessage: options.prompt } : {}),
    });
    chats.set(project, chat);
    await chat.run();
    project.logger.info({ sessionId: project.context.currentId }, 'chat ended');
  } finally {
    await daemonStart;
    await project.close();
  }
}

/** S3: the chat asks the person when the model calls its handoff tool. */
export function chatAgentRequestChooser(project: OpenProject): (goal: string | null) => Promise<ExecutorName | 'skip'> {
  return async (goal) => {
    const chat = chats.get(project);
    return chat ? chat.chooseForAgent(goal) : 'skip';
  };
}

/**
 * The interactive chooser for the handoff extension (R19): the chat's selector. A project opened
 * interactively without a chat (none today) gets the default executor, as without a terminal.
 */
export function chatOverflowChooser(project: OpenProject): AutoMigrateChooser {
  return async (info) => {
    const chat = chats.get(project);
    return chat ? chat.chooseOnOverflow(info) : info.defaultExecutor;
  };
}
