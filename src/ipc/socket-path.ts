// Where a repository's daemon listens: a short hashed name in the user's private run folder
// (`$AI_ZEN_HOME/run`, beside the locks), whatever TMPDIR or XDG_RUNTIME_DIR say.
// Short on purpose: socket paths past 104–108 bytes are cut silently by the OS (and node-ipc).
import path from 'node:path';
import { AiZenError } from '../errors.js';
import { hashRealPath } from '../lock/lock-names.js';
import { runFolder, type Env } from '../paths.js';

/** macOS allows 104 bytes including the NUL, Linux 108; stay well under both. */
export const MAX_SOCKET_PATH_BYTES = 100;

/** The daemon socket of `repoRoot` (same for any path that resolves to the same real folder). */
export function socketPathFor(repoRoot: string, options: { readonly env?: Env } = {}): string {
  const socketPath = path.join(runFolder(options.env), `d-${hashRealPath(repoRoot, 16)}.sock`);
  assertSocketPathFits(socketPath);
  return socketPath;
}

export function assertSocketPathFits(socketPath: string): void {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new AiZenError(
      'daemon',
      `socket path ${socketPath} is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES} the OS allows; set AI_ZEN_HOME to a shorter folder`,
    );
  }
}
