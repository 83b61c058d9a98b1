// `ai-zen-daemon handoff|migrate [SESSION] [--executor …]`: the daemon runs the one migration
// service on a session no live ai-zen process owns (default: the latest session). SESSION is an id
// or a unique prefix of it or of the short id `status` prints, of any agent's session: a Claude
// Code or Codex session is handed off from its transcript, which is only read.
import { Option, type Command } from 'commander';
import { agentsInWords } from '../../config/agent-names.js';
import { HandoffReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError } from '../../errors.js';
import { MAX_GOAL_CHARACTERS, SessionRef } from '../../ipc/protocol.js';
import { ChosenExecutor } from '../../session/format.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { visibleJson, visibleText } from '../shared/visible-text.js';
import { shortId } from '../../short-id.js';

/** A self handoff is a full model turn (or two): give it time. */
export const HANDOFF_TIMEOUT_MS = 15 * 60_000;

export function registerHandoffCommands(program: Command, setup: CliSetup): void {
  for (const mode of ['handoff', 'migrate'] as const) {
    program
      .command(`${mode} [session]`)
      .description(
        mode === 'handoff'
          ? `write a handoff document for a session of ${agentsInWords(true)}, by id or unique prefix (default: the latest ai-zen one)`
          : 'hand an ai-zen session over to a new one, by id or unique prefix (default: the latest)',
      )
      .addOption(new Option('--executor <name>', 'self, summary or offline').choices(ChosenExecutor.options))
      .option('--goal <text>', 'the next goal: the document is written towards it')
      .option('--json', 'one JSON object, for scripts')
      .action(async (session: string | undefined, options: { executor?: ChosenExecutor; json?: boolean; goal?: string }) => {
        const { io } = setup;
        if (session !== undefined && !SessionRef.safeParse(session).success)
          throw new AiZenError('usage', `not a session id or prefix: ${JSON.stringify(session)}`);
        const root = await daemonRoot(io.cwd, io.env);
        const goal = options.goal?.replace(/\s+/g, ' ').trim();
        if (goal !== undefined && (goal === '' || goal.length > MAX_GOAL_CHARACTERS))
          throw new AiZenError('usage', `--goal must be 1 to ${MAX_GOAL_CHARACTERS} characters`);
        const params = {
          ...(session ? { session } : {}),
          ...(options.executor ? { executor: options.executor } : {}),
          ...(goal ? { goal } : {}),
        };
        const reply = await requestDaemon(root, io.env, mode, params, HandoffReply, HANDOFF_TIMEOUT_MS);
        if (options.json) return writeOut(io.stdout, visibleJson(reply));
        const downgrades = reply.downgrades.map((entry) => `  (${entry.from} failed: ${entry.reason})\n`).join('');
        const next = reply.newSessionId
          ? `  new session ${reply.newSessionId}\n`
          : reply.successorCommand
            ? `  continue with: ${reply.successorCommand}\n`
            : '';
        await writeOut(
          io.stdout,
          visibleText(
            `${reply.path}\n  written by ${reply.executor} for ${reply.agent ? `${reply.agent} ` : ''}session ${shortId(reply.sessionId)}\n${downgrades}${next}`,
          ),
        );
      });
  }
}
