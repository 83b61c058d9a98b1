// `ai-zen handoff` (R1, R17) and `ai-zen migrate` (R2, R18): write the handoff document of a
// session (the latest by default) and show its path on stdout; migrate then carries the
// conversation on in a new session that `ai-zen --continue` picks up.
import { confirm } from '@inquirer/prompts';
import type { Command } from 'commander';
import { agentsInWords } from '../../config/agent-names.js';
import { AiZenError } from '../../errors.js';
import { EXIT_FAILURE } from '../../exit-codes.js';
import { normaliseGoal } from '../../handoff/goal.js';
import type { HandoffMode, HandoffOutcome } from '../../handoff/migration-service.js';
import { ChosenExecutor } from '../../session/format.js';
import { projectHandoff } from './handoff-extension.js';
import { terminalReview } from './review-document.js';
import { openProject } from '../shared/open-project.js';
import { describeChecks } from '../../handoff/checks/describe-checks.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { runUndo } from './migrate-undo.js';

interface HandoffCommandOptions {
  readonly session?: string;
  readonly executor?: string;
  readonly verbose?: boolean;
  readonly yes?: boolean;
  /** S1: the next goal the document is written towards. */
  readonly goal?: string;
  /** S2: review the document (continue / edit / cancel) before the new session starts. */
  readonly edit?: boolean;
  /** One JSON object on stdout, for scripts; nothing else is printed but errors. */
  readonly json?: boolean;
  /** `migrate --undo [session]` (true: no session named, the latest migration). */
  readonly undo?: string | boolean;
}

/** What `--json` prints: the daemon's `handoff --json` reply and what this process knows besides. */
function outcomeJson(outcome: HandoffOutcome): string {
  const { mode, sessionId, path, executor, downgrades, newSessionId, checks, cost, goal, cancelled } = outcome;
  const value = {
    mode,
    sessionId,
    path,
    executor,
    downgrades,
    newSessionId,
    goal: goal ?? null,
    checks,
    cost,
    cancelled: cancelled === true,
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}

function parseExecutor(value: string | undefined): ChosenExecutor | undefined {
  if (value === undefined) return undefined;
  const parsed = ChosenExecutor.safeParse(value);
  if (!parsed.success) throw new AiZenError('usage', `--executor must be self, summary or offline (got ${JSON.stringify(value)})`);
  return parsed.data;
}

/** `--verbose`: what the handoff cost (R28–R30). */
export function describeCost(outcome: HandoffOutcome): string {
  const { requests, prompt_tokens: prompt, completion_tokens: completion } = outcome.cost;
  const downgrades = outcome.downgrades.length > 0 ? ` after ${outcome.downgrades.map((entry) => entry.from).join(' → ')}` : '';
  return `cost: executor ${outcome.executor}${downgrades} · ${requests} request${requests === 1 ? '' : 's'} · ${prompt} prompt + ${completion} completion tokens`;
}

/** Yes only on an explicit yes; Ctrl-C means no. */
async function confirmMigration(io: CliSetup['io']): Promise<boolean> {
  try {
    const message = 'Migrate? A handoff document is written, then the history is cleared and a new session starts from it';
    return await confirm({ message, default: false }, { input: io.stdin, output: io.stderr });
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return false;
    throw error;
  }
}

async function runHandoff(mode: HandoffMode, options: HandoffCommandOptions, setup: CliSetup): Promise<void> {
  if (mode === 'migrate' && options.undo !== undefined) {
    const named = typeof options.undo === 'string' ? options.undo : options.session;
    return runUndo(named, { json: options.json === true }, setup);
  }
  const executor = parseExecutor(options.executor);
  // S1: a goal that cannot be used is refused before anything is asked or opened.
  const goal = normaliseGoal(options.goal);
  const { io } = setup;
  if (options.edit === true && !io.stdin.isTTY)
    throw new AiZenError('usage', '--edit needs a terminal (it asks whether to continue, edit or cancel)');
  if (mode === 'migrate' && options.yes !== true) {
    // R18: migrate drops the history from the conversation, so a person confirms; a script says --yes.
    if (!io.stdin.isTTY)
      throw new AiZenError('usage', 'migrate needs --yes when not run in a terminal (it clears the conversation history)');
    const confirmed = await confirmMigration(io);
    if (!confirmed) throw new AiZenError('usage', 'migration cancelled', { exitCode: EXIT_FAILURE });
  }
  const project = await openProject({
    cwd: io.cwd,
    env: io.env,
    stderr: io.stderr,
    ...(options.session !== undefined ? { resumeId: options.session } : { continueLatest: true }),
    verbose: options.verbose === true,
    extensions: setup.extensions,
    interactive: false,
  });
  try {
    const { service, events } = projectHandoff(project);
    // R11: each downgrade is announced in one line (stderr: stdout stays the path alone); --json has them in its object.
    if (options.json !== true)
      events.on('handoff.downgraded', (event) => {
        void writeOut(io.stderr, `ai-zen: ${event.from} handoff failed (${event.reason}); falling back to ${event.to}\n`).catch(() => {});
      });
    const outcome = await service.handoff({
      mode,
      ...(executor ? { executor } : {}),
      ...(goal !== undefined ? { goal } : {}),
      ...(options.edit === true ? { review: terminalReview({ input: io.stdin, output: io.stderr, env: io.env }) } : {}),
    });
    await writeOut(io.stdout, options.json === true ? outcomeJson(outcome) : `${outcome.path}\n`);
    if (outcome.cancelled)
      throw new AiZenError('usage', `migration cancelled at review: the session goes on as it was; the document stays at ${outcome.path}`, {
        exitCode: EXIT_FAILURE,
      });
    if (options.json === true) return;
    if (outcome.newSessionId !== null)
      await writeOut(io.stderr, `ai-zen: migrated to session ${outcome.newSessionId}; carry on with ai-zen --continue\n`);
    // F1–F4: a document that still fails a check says so (stderr); a passing one only with --verbose.
    const checked = describeChecks(outcome.checks);
    if (checked !== null && (options.verbose === true || !checked.startsWith('checked'))) await writeOut(io.stderr, `ai-zen: ${checked}\n`);
    if (options.verbose === true) await writeOut(io.stderr, `${describeCost(outcome)}\n`);
  } finally {
    await project.close();
  }
}

/** `--verbose` may be given before the command name too (`ai-zen --verbose handoff`): the root program owns it then. */
function withGlobals(options: HandoffCommandOptions, command: Command): HandoffCommandOptions {
  return { ...options, verbose: options.verbose === true || command.optsWithGlobals<HandoffCommandOptions>().verbose === true };
}

export function registerHandoffCommands(program: Command, setup: CliSetup): void {
  const goalHelp = 'the next goal: the document is written towards it (🎯 states it; 📋 and 🔔 lead to it)';
  const executorHelp = 'who writes the document: self (the agent, default), summary (one call, no tools) or offline (no model)';
  program
    .command('handoff')
    .description('write a handoff document for a session and show its path; the session goes on')
    .option('-s, --session <id>', 'the session to hand off (default: the latest)')
    .option('-e, --executor <name>', executorHelp)
    .option('-g, --goal <text>', goalHelp)
    .option('--verbose', 'also show what it cost, and write the log to stderr')
    .option('--json', 'one JSON object on stdout (path, executor, session ids, checks, cost), for scripts')
    .action((options: HandoffCommandOptions, command: Command) => runHandoff('handoff', withGlobals(options, command), setup));
  program
    .command('migrate')
    .description('hand off, then continue in a new session that starts from the document')
    .option('-s, --session <id>', 'the session to migrate (default: the latest)')
    .option('-e, --executor <name>', executorHelp)
    .option('-g, --goal <text>', goalHelp)
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--edit', 'once the document is written: continue, open it in $VISUAL/$EDITOR, or cancel (needs a terminal)')
    .option('--verbose', 'also show what it cost, and write the log to stderr')
    .option('--json', 'one JSON object on stdout (path, executor, session ids, checks, cost), for scripts')
    .option(
      '--undo [session]',
      `reopen a migrated session (default: the latest migration) with its whole history; for a session of ${agentsInWords(false)}, print its resume command`,
    )
    .action((options: HandoffCommandOptions, command: Command) => runHandoff('migrate', withGlobals(options, command), setup));
}
