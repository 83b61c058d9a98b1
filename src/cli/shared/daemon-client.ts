// The CLI side of the daemon's IPC: which repo, which socket, one validated request.
import type { z } from 'zod';
import { AiZenError } from '../../errors.js';
import { connectIpc, type IpcClient } from '../../ipc/client.js';
import type { RequestParams, RequestType } from '../../ipc/protocol.js';
import { socketPathFor } from '../../ipc/socket-path.js';
import { daemonLockName, isLockHeld } from '../../lock/os-lock.js';
import { readIdleExitNote } from '../../daemon/process/idle-exit-note.js';
import { projectPaths, type Env } from '../../paths.js';
import { findProjectRoot } from './project-root.js';

/** The repo a command is about: the git top level of the working folder (as `ai-zen` decides). */
export function daemonRoot(cwd: string, env: Env): Promise<string> {
  return findProjectRoot(cwd, env);
}

export function noDaemonError(root: string): AiZenError {
  return new AiZenError('daemon', `no daemon is running for ${root} (start it with: ai-zen-daemon start)`);
}

/** The same, for a daemon that exited idle: it is not broken, the next agent session here starts it again. */
async function noDaemonErrorOf(root: string): Promise<AiZenError> {
  const note = await readIdleExitNote(projectPaths(root));
  if (note === null) return noDaemonError(root);
  return new AiZenError(
    'daemon',
    `no daemon is running for ${root}: it exited idle at ${note.at} (${note.reason}); the next agent session here starts it again, or: ai-zen-daemon start`,
  );
}

export function isDaemonRunning(root: string, env: Env): Promise<boolean> {
  return isLockHeld(daemonLockName(root), { env });
}

/** Connects to the daemon of `root`, or fails with the one line a person can act on. */
export async function connectDaemon(root: string, env: Env, timeoutMs = 5000): Promise<IpcClient> {
  const socketPath = socketPathFor(root, { env });
  try {
    return await connectIpc({ socketPath, repoRoot: root, timeoutMs });
  } catch (error) {
    if (!(await isDaemonRunning(root, env))) throw await noDaemonErrorOf(root);
    throw new AiZenError(
      'daemon',
      `the daemon for ${root} holds its lock but does not answer on ${socketPath} (it may be starting or stopping)`,
      { cause: error },
    );
  }
}

/** One request, its answer checked against `schema` (a malformed answer is one clear line too). */
export async function requestDaemon<T, K extends RequestType>(
  root: string,
  env: Env,
  type: K,
  params: RequestParams<K> | undefined,
  schema: z.ZodType<T>,
  timeoutMs = 10_000,
): Promise<T> {
  const client = await connectDaemon(root, env);
  try {
    const reply = await client.request(type, params, { timeoutMs });
    const parsed = schema.safeParse(reply);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AiZenError(
        'ipc',
        `the daemon's answer to ${type} is not what this version expects (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})`,
      );
    }
    return parsed.data;
  } finally {
    await client.close().catch(() => {});
  }
}
