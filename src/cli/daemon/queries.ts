// `ai-zen-daemon status|sessions|handoffs|facts [--json]`: questions for the running daemon (D5).
import type { Command } from 'commander';
import { allowsProjectChoices, checkTrust, describeTrust } from '../../config/trust.js';
import type { Env } from '../../paths.js';
import { FactsInfo, HandoffsReply, SessionsReply, StatusInfo, TranscriptReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError } from '../../errors.js';
import { DEFAULT_LAST_TURNS, MAX_LAST_TURNS, MAX_READ_BACK_BYTES, renderTurns } from '../../handoff/visible-turns.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import { daemonRoot, isDaemonRunning, requestDaemon } from '../shared/daemon-client.js';
import { renderFactsInfo, renderHandoffs, renderSessions, renderStatus } from './render.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { visibleJson as json, visibleText } from '../shared/visible-text.js';

/** T4: an untrusted repo says so, and how to trust it; nothing when all is well. */
export async function trustLine(root: string, env: Env): Promise<string> {
  const verdict = await checkTrust(root, env);
  return allowsProjectChoices(verdict) ? '' : `trust     ${describeTrust(verdict)}\n`;
}

export function registerQueryCommands(program: Command, setup: CliSetup): void {
  const { io } = setup;
  program
    .command('status')
    .description('sessions with their context usage, git, ports and the latest handoffs')
    .option('--all', 'the sessions already handed off too')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean; all?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      let status: StatusInfo;
      try {
        status = await requestDaemon(root, io.env, 'status', options.all ? { all: true } : undefined, StatusInfo);
      } catch (error) {
        // A script asks "is it running?" and reads the answer as JSON either way;
        // the exit code (1) and the line on stderr stay those of any command without a daemon.
        if (options.json && !(await isDaemonRunning(root, io.env)))
          await writeOut(io.stdout, json({ running: false, repo: root, socket: socketPathFor(root, { env: io.env }) }));
        throw error;
      }
      await writeOut(
        io.stdout,
        options.json ? json({ running: true, ...status }) : visibleText(renderStatus(status) + (await trustLine(root, io.env))),
      );
    });
  program
    .command('sessions')
    .description('every session of the repo with its token usage and owner')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'sessions', undefined, SessionsReply);
      await writeOut(io.stdout, options.json ? json(reply) : visibleText(renderSessions(reply.sessions)));
    });
  program
    .command('handoffs')
    .description('every handoff document seen, each with its commit or why it is not committed yet')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const reply = await requestDaemon(root, io.env, 'handoffs', undefined, HandoffsReply);
      await writeOut(io.stdout, options.json ? json(reply) : visibleText(renderHandoffs(reply.handoffs)));
    });
  program
    .command('facts')
    .description('branch, commit, dirty files and listening ports, captured now')
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const root = await daemonRoot(io.cwd, io.env);
      const facts = await requestDaemon(root, io.env, 'facts', { refresh: true }, FactsInfo);
      await writeOut(io.stdout, options.json ? json(facts) : visibleText(renderFactsInfo(facts)));
    });
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
