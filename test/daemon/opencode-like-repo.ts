// A daemon's repo with an opencode-like client's temp HOME beside it: the daemon is given the client's
// folders (the harness gives it empty ones), so it reads the database the client writes and the
// window its config names.
import path from 'node:path';
import { makeClientHome, type OpencodeHome, type OpencodeLikeClient } from '../support/opencode-like-client.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

export async function makeOpencodeLikeRepo(
  client: OpencodeLikeClient,
  options: {
    readonly baseURL: string;
    readonly context: number;
    /** The client's grace in the repo's config (0: a handoff at once); the default's when not given. */
    readonly graceSeconds?: number;
  },
): Promise<{ readonly daemon: DaemonRepo; readonly home: OpencodeHome }> {
  const { graceSeconds } = options;
  const daemon = await makeDaemonRepo(graceSeconds === undefined ? {} : { config: { agents: { [client.app]: { graceSeconds } } } });
  const home = await makeClientHome(client, path.dirname(daemon.root), { baseURL: options.baseURL, context: options.context });
  daemon.env.XDG_DATA_HOME = home.dataHome;
  daemon.env.XDG_CONFIG_HOME = home.configHome;
  return { daemon, home };
}
