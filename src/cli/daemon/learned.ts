// `ai-zen-daemon learned [--forget] [--agent <name>] [--model <model>] [--json]`: where ai-zen has
// learned that each agent compacts each model (daemon/watching/compaction-points.ts), the point this
// repo runs by and what it rests on — and a way to forget it, for every repo, so that a wrong point
// (a transcript that lied, a compaction taken for the agent's own) stops moving the handoffs.
import type { Command } from 'commander';
import { describeLearned, forgetLearned, POINTS_FILE } from '../../daemon/watching/compaction-points.js';
import { silentLogger } from '../../log/logger.js';
import { aiZenHome } from '../../paths.js';
import { daemonRoot } from '../shared/daemon-client.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

export function registerLearnedCommand(program: Command, setup: CliSetup): void {
  program
    .command('learned')
    .description('where each agent was seen compacting each model by itself, and the point this repo hands off by')
    .option('--forget', 'forget it (every repo), so handoffs go by the model table again')
    .option('--agent <name>', 'only this agent (claude-code, codex, …)')
    .option('--model <model>', 'only this model')
    .option('--json', 'as JSON')
    .action(async (options: { forget?: boolean; agent?: string; model?: string; json?: boolean }) => {
      const { io } = setup;
      const home = aiZenHome(io.env);
      if (options.forget) {
        const which = { ...(options.agent ? { agent: options.agent } : {}), ...(options.model ? { model: options.model } : {}) };
        const dropped = await forgetLearned(home, silentLogger(), which);
        await writeOut(
          io.stdout,
          `ai-zen-daemon: forgot ${dropped} compaction${dropped === 1 ? '' : 's'}${options.agent ? ` of ${options.agent}` : ''}${options.model ? ` on ${options.model}` : ''}; running daemons go by the model table again, and do not learn those compactions back\n`,
        );
        return;
      }
      const root = await daemonRoot(io.cwd, io.env);
      const rows = (await describeLearned(home, root, silentLogger())).filter(
        (row) => (!options.agent || row.agent === options.agent) && (!options.model || row.model === options.model.toLowerCase()),
      );
      if (options.json) {
        await writeOut(io.stdout, `${JSON.stringify({ repo: root, file: POINTS_FILE, learned: rows }, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        await writeOut(io.stdout, 'ai-zen-daemon: nothing learned yet: handoffs go by the model table\n');
        return;
      }
      const lines = rows.map((row) => {
        const point = row.point === null ? 'not this repo’s yet (the model table)' : `compacts at ${row.point}%`;
        return `  ${row.agent}  ${row.model}  ${point}  (${row.observations} compaction${row.observations === 1 ? '' : 's'} in ${row.repos} repo${row.repos === 1 ? '' : 's'})`;
      });
      await writeOut(
        io.stdout,
        `Where agents compact by themselves, as learned (for ${root}):\n${lines.join('\n')}\nforget it with: ai-zen-daemon learned --forget [--agent <name>] [--model <model>]\n`,
      );
    });
}
