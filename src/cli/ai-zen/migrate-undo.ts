// `ai-zen migrate --undo [<session>]`. An ai-zen session that was migrated is reopened
// (session/undo-migration.ts: the predecessor is the latest again with its whole history, the
// successor kept); another agent's session is never changed by ai-zen, so its resume command is
// printed (`claude --resume <id>`, `codex resume <id>`) for the person to run.
import { SessionRef } from '../../ipc/protocol.js';
import { AiZenError } from '../../errors.js';
import { projectPaths } from '../../paths.js';
import { sessionDependencies } from '../../session/open-session.js';
import { NoSuchSessionError, undoMigration } from '../../session/undo-migration.js';
import { shortId } from '../../short-id.js';
import { knownSessions, resolveNamedSession, resumeCommand } from '../shared/other-agent-sessions.js';
import { findProjectRoot } from '../shared/project-root.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

export async function runUndo(given: string | undefined, options: { readonly json: boolean }, setup: CliSetup): Promise<void> {
  const { io } = setup;
  if (given !== undefined && !SessionRef.safeParse(given).success)
    throw new AiZenError('usage', `not a session id or prefix: ${JSON.stringify(given)}`);
  const root = await findProjectRoot(io.cwd, io.env);
  try {
    const undone = await undoMigration(sessionDependencies({ paths: projectPaths(root), env: io.env }), given);
    if (options.json) return writeOut(io.stdout, `${JSON.stringify({ agent: 'ai-zen', ...undone, resumeCommand: null }, null, 2)}\n`);
    await writeOut(io.stdout, `${undone.reopenedId}\n`);
    await writeOut(
      io.stderr,
      `ai-zen: reopened session ${undone.reopenedId} with its whole history; carry on with ai-zen --continue (its successor ${shortId(undone.successorId)} is kept)\n`,
    );
  } catch (error) {
    if (!(error instanceof NoSuchSessionError) || given === undefined) throw error;
    // Not one of ai-zen's own: perhaps a Claude Code or Codex session of this repo.
    const session = resolveNamedSession(given, await knownSessions(root, io.env), root);
    const command = resumeCommand(session);
    if (command === null) throw error;
    if (options.json)
      return writeOut(
        io.stdout,
        `${JSON.stringify({ agent: session.agent, reopenedId: session.id, successorId: null, resumeCommand: command }, null, 2)}\n`,
      );
    await writeOut(io.stdout, `${command}\n`);
    await writeOut(
      io.stderr,
      `ai-zen: session ${shortId(session.id)} is a ${session.agent} session: ai-zen leaves it as it is; the command above resumes it with its whole history\n`,
    );
  }
}
