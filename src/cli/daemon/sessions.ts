// `ai-zen-daemon sessions [--json]`: every session of the repo with its token usage and owner (D5).
import type { Command } from 'commander';
import { SessionsReply } from '../../daemon/side-channels/status-schema.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';
import { renderSessions } from './render.js';

export function registerSessionsCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('sessions')
    .description('every session of the repo with its token usage and owner')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'sessions', undefined, SessionsReply);
      await writeOut(io.stdout, options.json ? json(reply) : visibleText(renderSessions(reply.sessions)));
    });
}
