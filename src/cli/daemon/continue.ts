// `ai-zen-daemon continue <session> --in claude|codex|…|ai-zen [-- client args]` starts
// a session's successor in the agent of the person's choice, from the session's handoff document,
// and hands the terminal to it; `--print` prints the command instead. The first prompt names the
// document first and shows it when it is small (successor-start.ts).
import { type Command, Option } from 'commander';
import { AGENT_MODULES, agentModule } from '../../daemon/sources/index.js';
import { AiZenError } from '../../errors.js';
import { SessionRef } from '../../ipc/protocol.js';
import { runInteractive } from '../../run-process.js';
import { shortId } from '../../short-id.js';
import { daemonRoot } from '../shared/daemon-client.js';
import { commandScript } from '../shared/command-scripts.js';
import { knownSessions, resolveNamedSession } from '../shared/other-agent-sessions.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { commandLine, documentToShow, latestDocument, onPath, successorPrompt } from './successor-start.js';

/** ai-zen's own, and every watched agent that can start a session from a first prompt. */
const CLIENTS = ['ai-zen', ...AGENT_MODULES.map((agent) => agent.word)];

interface ContinueOptions {
  readonly in: string;
  readonly print?: boolean;
}

export function registerContinueCommand(program: Command, setup: CliSetup): void {
  program
    .command('continue <session> [client-args...]')
    .description(
      `start a session's successor in ${CLIENTS.join(', ')} from its handoff document, on this terminal (args after -- go to the client)`,
    )
    .addOption(new Option('--in <agent>', 'the agent to continue in').choices(CLIENTS).makeOptionMandatory())
    .option('--print', 'print the command instead of running it (for ai-zen the successor session is made first)')
    .action(async (given: string, clientArgs: string[], options: ContinueOptions) => {
      const { io } = setup;
      if (!SessionRef.safeParse(given).success) throw new AiZenError('usage', `not a session id or prefix: ${JSON.stringify(given)}`);
      const root = await daemonRoot(io.cwd, io.env);
      const known = await knownSessions(root, io.env);
      const session = resolveNamedSession(given, known, root);
      const short = shortId(session.id);
      const doc = await latestDocument(root, io.env, session, known);
      if (doc === null)
        throw new AiZenError(
          'handoff',
          `session ${short} (${session.agent}) has no handoff document yet: write one with ai-zen-daemon handoff ${short}`,
        );
      let file: string;
      let args: string[];
      let shown: string;
      if (options.in === 'ai-zen') {
        // Loaded only here: the rest of ai-zen-daemon never needs the agent stack.
        const { makeAiZenSuccessor } = await import('./continue-in-ai-zen.js');
        const newId = await makeAiZenSuccessor(root, io.env, session, doc, (line) => void io.stderr.write(`ai-zen-daemon: ${line}\n`));
        args = ['--resume', newId, ...clientArgs];
        shown = commandLine('ai-zen', args);
        // Our own ai-zen, beside this command: the one that wrote the session.
        file = process.execPath;
        args = [commandScript('ai-zen'), ...args];
      } else {
        const client = agentModule(options.in);
        if (client === null) throw new AiZenError('usage', `cannot continue in ${JSON.stringify(options.in)}`);
        const prompt = successorPrompt(doc, await documentToShow(root, doc));
        args = [...client.startArgs(prompt, clientArgs)];
        shown = commandLine(options.in, args);
        if (!options.print) {
          const found = await onPath(options.in, io.env);
          if (found === null)
            throw new AiZenError('usage', `${options.in} is not on PATH; install it, or run --print and start it yourself`);
        }
        file = options.in;
      }
      if (options.print) return writeOut(io.stdout, `${shown}\n`);
      await writeOut(io.stderr, `ai-zen-daemon: continuing session ${short} in ${options.in} from ${doc}\n`);
      const code = await runInteractive(file, args, { cwd: root, env: io.env });
      if (code === null) throw new AiZenError('handoff', `${options.in} could not be started (or was killed); the command was: ${shown}`);
      if (code !== 0) throw new AiZenError('handoff', `${options.in} exited with code ${code}`, { exitCode: code });
    });
}
