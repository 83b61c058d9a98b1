// `ai-zen-daemon sessions [--all] [--json]`: the repo's sessions with their token usage and owner (D5);
// those that exited or were handed off are folded out, as in `status` (`--all` lists them).
import type { Command } from 'commander';
import { isFolded } from '../../daemon/side-channels/session-states.js';
import { SessionsReply } from '../../daemon/side-channels/status-schema.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';
import { renderSessions, standing } from './render.js';

export function registerSessionsCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('sessions')
    .description('the sessions of the repo with their token usage and owner (not those exited or handed off)')
    .option('--all', 'the sessions that exited or were handed off too')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean; all?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'sessions', undefined, SessionsReply);
      const all = options.all === true;
      if (options.json) {
        const sessions = all ? reply.sessions : reply.sessions.filter((session) => !isFolded(standing(session)));
        await writeOut(io.stdout, json({ ...reply, sessions }));
        return;
      }
      await writeOut(io.stdout, visibleText(renderSessions(reply.sessions, all)));
    });
}
