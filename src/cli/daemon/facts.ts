// `ai-zen-daemon facts [--json]`: branch, commit, dirty files and listening ports, captured now (D5).
import type { Command } from 'commander';
import { FactsInfo } from '../../daemon/side-channels/status-schema.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { type CliSetup, writeOut } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';
import { renderFactsInfo } from './render.js';

export function registerFactsCommand(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('facts')
    .description('branch, commit, dirty files and listening ports, captured now')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const facts = await requestDaemon(root, io.env, 'facts', { refresh: true }, FactsInfo);
      await writeOut(io.stdout, options.json ? json(facts) : visibleText(renderFactsInfo(facts)));
    });
}
