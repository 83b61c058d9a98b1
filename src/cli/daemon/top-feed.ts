// What `ai-zen-daemon top` shows, asked of each daemon: one connection per daemon,
// subscribed to its events (a handoff, a compaction, an overflow redraws at once), asked for its
// sessions and handoffs. A reading of a session's context is no event (one per turn would fill
// daemon.log and every hook), so the live view also asks again at an interval — for the sessions
// only: the handoffs change with an event, and are asked again only after one.
import { isFolded } from '../../daemon/side-channels/session-states.js';
import { HandoffsReply, SessionsReply } from '../../daemon/side-channels/status-schema.js';
import { describeError } from '../../errors.js';
import type { IpcClient } from '../../ipc/client.js';
import type { Env } from '../../paths.js';
import { connectDaemon } from '../shared/daemon-client.js';
import { listDaemons } from './ls.js';
import type { TopDaemon } from './top-render.js';

const REQUEST_TIMEOUT_MS = 10_000;

export interface TopFeed {
  /** Every daemon's sessions now; a daemon that does not answer is a line saying why. */
  read(): Promise<TopDaemon[]>;
  close(): Promise<void>;
}

/**
 * `repo`: that repo's daemon only (its absence is an error on the first read, as for `status`);
 * null: every daemon of this user that answers (`--all`), found again at each read.
 */
export function createTopFeed(options: {
  readonly repo: string | null;
  readonly env: Env;
  readonly onEvent: () => void;
  /** The sessions that exited or were handed off too. */
  readonly folded?: boolean;
}): TopFeed {
  const clients = new Map<string, IpcClient>();
  /** Each daemon's handoffs as last asked; dropped by any event of that daemon. */
  const handoffsOf = new Map<string, TopDaemon['handoffs']>();
  /** Events seen (any daemon's): handoffs asked before the latest event are not kept. */
  let events = 0;
  let first = true;

  async function clientOf(repo: string): Promise<IpcClient> {
    const known = clients.get(repo);
    if (known) return known;
    const client = await connectDaemon(repo, options.env);
    clients.set(repo, client);
    void client.closed.then(() => {
      if (clients.get(repo) === client) clients.delete(repo);
      handoffsOf.delete(repo);
      options.onEvent();
    });
    await client.subscribe(() => {
      events += 1;
      handoffsOf.delete(repo);
      options.onEvent();
    });
    return client;
  }

  async function readOne(repo: string): Promise<TopDaemon> {
    const client = await clientOf(repo);
    const known = handoffsOf.get(repo);
    const seen = events;
    const [sessions, handoffs] = await Promise.all([
      client.request('sessions', undefined, { timeoutMs: REQUEST_TIMEOUT_MS }),
      known ??
        client.request('handoffs', undefined, { timeoutMs: REQUEST_TIMEOUT_MS }).then((reply) => HandoffsReply.parse(reply).handoffs),
    ]);
    if (!known && seen === events && clients.get(repo) === client) handoffsOf.set(repo, handoffs);
    const every = SessionsReply.parse(sessions).sessions;
    // As in `status`: a session that exited or whose successor exists is folded out (`--all` shows it).
    return { repo, sessions: options.folded ? every : every.filter((session) => !isFolded(session.state)), handoffs };
  }

  return {
    async read() {
      const repos = options.repo !== null ? [options.repo] : (await listDaemons(options.env)).map((daemon) => daemon.repo);
      const wasFirst = first;
      first = false;
      return Promise.all(
        repos.map((repo) =>
          readOne(repo).catch((error: unknown) => {
            // This repo's daemon missing at the start is the command's error; later, a line on the screen.
            if (wasFirst && options.repo !== null) throw error;
            return { repo, sessions: [], handoffs: [], error: describeError(error) };
          }),
        ),
      );
    },
    async close() {
      const open = [...clients.values()];
      clients.clear();
      handoffsOf.clear();
      await Promise.all(open.map((client) => client.close().catch(() => {})));
    },
  };
}
