// `ai-zen-daemon transcript <session> [--last N] [--json]`: the last turns of any agent's session,
// as a person saw them, bounded in bytes.
import type { Command } from 'commander';
import { TranscriptReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError } from '../../errors.js';
import { DEFAULT_LAST_TURNS, MAX_LAST_TURNS, MAX_READ_BACK_BYTES, renderTurns } from '../../handoff/visible-turns.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';

export function registerTranscriptCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('transcript <session>')
    .description(
      `the last turns of a session of any agent (its id or a prefix), as a person saw them; at most ${MAX_READ_BACK_BYTES / 1024} KB`,
    )
    .option('--last <turns>', `how many turns (1–${MAX_LAST_TURNS})`, String(DEFAULT_LAST_TURNS))
    .option('--json', 'one JSON object, for scripts')
    .action(async (session: string, options: { last: string; json?: boolean }) => {
      const last = Number(options.last);
      if (!Number.isInteger(last) || last < 1 || last > MAX_LAST_TURNS)
        throw new AiZenError('usage', `--last takes a whole number from 1 to ${MAX_LAST_TURNS}, not ${options.last}`);
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(session))
        throw new AiZenError('usage', `a session is named by its id or a prefix of it (letters, digits, - and _), not ${session}`);
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'transcript', { session, last }, TranscriptReply);
      const heading = `session ${reply.sessionId} (${reply.agent}): the last ${reply.turns.length} of ${reply.total} turns`;
      await writeOut(io.stdout, options.json ? json(reply) : visibleText(renderTurns(heading, reply.turns, reply.total)));
    });
}
