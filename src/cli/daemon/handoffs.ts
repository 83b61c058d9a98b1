// `ai-zen-daemon handoffs [--json]`: every handoff document seen, with its commit or why not yet (D5).
import type { Command } from 'commander';
import { HandoffsReply } from '../../daemon/side-channels/status-schema.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';
import { renderHandoffs } from './render.js';

export function registerHandoffsCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('handoffs')
    .description('every handoff document seen, each with its commit or why it is not committed yet')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'handoffs', undefined, HandoffsReply);
      await writeOut(io.stdout, options.json ? json(reply) : visibleText(renderHandoffs(reply.handoffs)));
    });
}
