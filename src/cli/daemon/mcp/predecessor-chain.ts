// The predecessor chain an agent's successor reads back through `ai-zen-daemon mcp`.
// The sessions come from the running daemon (`sessions`: every watched session of this repo, of
// every agent, with its transcript and — for Claude Code and Codex — the handoff document its first
// request names); the links are the ones the daemon already draws: an ai-zen session's header
// (previousId), another agent's session through its document to the session the document was
// written for. Messages are read here, read-only, from the transcript the daemon named, and only
// when that file is one of the agents' transcripts of this repo (the sources' own `matches`).
import { readRegularText } from '../../../fs/open-regular-file.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { PreviousSessionOptions, SessionReader } from '../../../agent/tools/previous-session.js';
import { loadConfig } from '../../../config/load-config.js';
import { checkTrust, TRUST_COMMAND } from '../../../config/trust.js';
import { claudeSessionsDir } from '../../../daemon/sources/claude-code/claude-paths.js';
import { createSessionSources } from '../../../daemon/sources/index.js';
import { SessionsReply, type SessionInfo } from '../../../daemon/side-channels/status-schema.js';
import { findSource, type SessionSource } from '../../../daemon/watching/session-source.js';
import { AiZenError } from '../../../errors.js';
import { projectPaths, type Env } from '../../../paths.js';
import type { HeaderLine, SessionLine } from '../../../session/format.js';
import { SessionStore } from '../../../session/store.js';
import { namesSession, shortId } from '../../../short-id.js';
import { runProcess } from '../../../run-process.js';
import { requestDaemon } from '../../shared/daemon-client.js';
import { boundedMessage, cachedSession, fileIdentity, readAiZenSession } from './chain-sessions.js';

/** `.ai-zen/handoffs/20261204-040000-abcd1234(-2).md` → `abcd1234`: the short id of the session it was written for. */
/** How long the caller's own session may take to reach the daemon's list, and how often it is asked. */
const CALLER_WAIT_MS = 5_000;
const CALLER_POLL_MS = 100;

const DOC_SHORT_ID = /(?:^|\/)\d{8}-\d{6}-([A-Za-z0-9_-]{8})(?:-[1-9]\d{0,3})?\.md$/;

export interface PredecessorChain {
  /** The session whose predecessors are read (the successor asking). */
  readonly start: SessionInfo;
  /** How the start was chosen: named by the caller, the Claude Code session that started this server, or the latest successor. */
  readonly chosenBy: 'given' | 'caller' | 'latest';
  /** What previous_session's search and read go through: the chain's sessions as ai-zen sessions. */
  readonly reader: SessionReader;
  readonly previousId: PreviousSessionOptions['previousId'];
}

export interface ChainContext {
  readonly root: string;
  readonly env: Env;
}

/**
 * The chain that starts at `session` (an id or a prefix of it; default: the Claude Code session
 * that started this server, else the session of this repo written to last that continues another —
 * the successor asking, as a running session is the one writing its transcript now).
 */
export async function predecessorChain(context: ChainContext, session: string | undefined): Promise<PredecessorChain> {
  const callerId = session === undefined ? await claudeCallerId(context.env) : null;
  let { sessions } = await requestDaemon(context.root, context.env, 'sessions', undefined, SessionsReply);
  // The successor calls us in its first turn, a moment after it wrote its transcript: the daemon may not have read it yet
  // (it is not listed, or not yet known to continue another session).
  const found = (list: readonly SessionInfo[]) =>
    callerId !== null
      ? list.some((info) => info.id === callerId)
      : list.some((info) => (info.agent ?? info.source) === 'ai-zen' || info.previous);
  for (const deadline = Date.now() + CALLER_WAIT_MS; session === undefined && !found(sessions) && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, CALLER_POLL_MS));
    ({ sessions } = await requestDaemon(context.root, context.env, 'sessions', undefined, SessionsReply));
  }
  const paths = projectPaths(context.root);
  const store = new SessionStore(paths);
  const config = await loadConfig({ root: context.root, env: context.env });
  const sources = createSessionSources({ root: context.root, paths, env: context.env, config });
  const byId = new Map(sessions.map((info) => [info.id, info]));

  /** An ai-zen session, streamed once per file identity (chain-sessions.ts). */
  const aiZenSession = async (id: string) => {
    const file = await store.confinedSessionFile(id);
    return cachedSession(fileIdentity(file, await fs.stat(file)), () => readAiZenSession(file, id));
  };
  const headers = new Map<string, Promise<HeaderLine | null>>();
  const headerOf = (id: string): Promise<HeaderLine | null> => {
    let header = headers.get(id);
    if (!header)
      headers.set(
        id,
        (header = aiZenSession(id).then(
          (content) => content.header,
          () => null,
        )),
      );
    return header;
  };

  async function predecessorOf(info: SessionInfo): Promise<string | null> {
    if ((info.agent ?? info.source) === 'ai-zen') return (await headerOf(info.id))?.previousId ?? null;
    if (!info.previous) return null;
    if (info.previous.sessionId) return info.previous.sessionId;
    // The daemon did not see the document written (it was not running): its name says whose it is.
    const short = DOC_SHORT_ID.exec(info.previous.path)?.[1];
    const named = short ? sessions.filter((candidate) => shortId(candidate.id) === short) : [];
    return named.length === 1 ? named[0]!.id : null;
  }

  const caller = sessions.find((info) => info.id === callerId && (info.agent ?? info.source) === 'claude-code') ?? null;
  const start = session !== undefined ? named(sessions, session) : (caller ?? (await latestContinuing(sessions, predecessorOf)));
  const previous = await predecessorOf(start);
  const predecessors = new Map<string, string | null>();

  // A cloned repo's git-tracked session files are someone else's words: not given to a model until the repo is trusted.
  const untrusted = (await checkTrust(context.root, context.env)).state !== 'trusted';
  const tracked = untrusted ? await trackedSessionFiles(context.root, context.env) : new Set<string>();

  const reader: SessionReader = {
    async read(id) {
      const info = byId.get(id);
      if (!info) throw new Error('it is not a session the daemon watches in this repo');
      if ((info.agent ?? info.source) === 'ai-zen') {
        const file = await store.confinedSessionFile(id);
        if (tracked.has(path.basename(file)))
          throw new Error(
            `it came with the repo (its session file is tracked by git) and this repo is not trusted: its messages are not given to a model (trust the repo with: ${TRUST_COMMAND})`,
          );
        return aiZenSession(id);
      }
      const messages = await foreignLines(info, sources);
      if (!predecessors.has(id)) predecessors.set(id, await predecessorOf(info));
      const header = {
        type: 'session',
        v: 1,
        id,
        createdAt: '',
        cwd: context.root,
        model: info.model ?? 'unknown',
        maxContextTokens: info.maxContextTokens ?? 1,
        previousId: predecessors.get(id) ?? null,
      } as HeaderLine;
      return { header, lines: messages };
    },
  };
  const chosenBy = session !== undefined ? 'given' : caller ? 'caller' : 'latest';
  return { start, chosenBy, reader, previousId: () => previous };
}

/**
 * The Claude Code session that started this server: its process (our parent: the shim execs node)
 * names its session in `sessions/<pid>.json` while it runs. Null for any other caller.
 */
async function claudeCallerId(env: Env): Promise<string | null> {
  const file = path.join(claudeSessionsDir(env), `${process.ppid}.json`);
  const record = await readRegularText(file)
    .then((text) => JSON.parse(text) as { sessionId?: unknown })
    .catch(() => null);
  return record && typeof record.sessionId === 'string' ? record.sessionId : null;
}

/** The session `given` names: its id, or a unique prefix of its id or short id. */
function named(sessions: readonly SessionInfo[], given: string): SessionInfo {
  const exact = sessions.find((info) => info.id === given);
  if (exact) return exact;
  const matching = sessions.filter((info) => namesSession(given, info.id));
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0) throw new AiZenError('session', `no session of this repo has an id starting with ${given}`);
  throw new AiZenError('session', `${matching.length} sessions have an id starting with ${given}; give more of the id`);
}

async function latestContinuing(
  sessions: readonly SessionInfo[],
  predecessorOf: (info: SessionInfo) => Promise<string | null>,
): Promise<SessionInfo> {
  const stamped = await Promise.all(
    sessions.map(async (info) => ({
      info,
      // A session that is no file (opencode's rows): its last reading's time.
      mtime: info.transcript
        ? await fs.stat(info.transcript).then(
            (stat) => stat.mtimeMs,
            () => Date.parse(info.usage?.at(-1)?.at ?? '') || 0,
          )
        : 0,
    })),
  );
  stamped.sort((a, b) => b.mtime - a.mtime);
  for (const { info } of stamped) if ((await predecessorOf(info)) !== null) return info;
  throw new AiZenError('session', 'no session of this repo continues another one (none started from a handoff document)');
}

/** Another agent's transcript, read by its own source; never a file outside that agent's transcript folders. */
async function foreignLines(info: SessionInfo, sources: readonly SessionSource[]): Promise<readonly SessionLine[]> {
  const file = info.transcript;
  if (!file || !path.isAbsolute(file)) throw new Error('the daemon did not say where its transcript is');
  const source = findSource(sources, file);
  if (!source?.handoff || source.kind !== info.agent) throw new Error('its transcript is not one ai-zen reads');
  const handoff = source.handoff;
  const load = async () => {
    let characters = 0;
    const lines = (await handoff.readEvidence(file)).messages.map((entry) => {
      const bounded = boundedMessage(entry.message);
      characters += bounded.characters;
      return { type: 'message', message: bounded.message } as SessionLine;
    });
    // The header is the caller's to make (it names the session's predecessor); the cache keeps the lines.
    return { session: { header: null as unknown as HeaderLine, lines }, characters };
  };
  // A session that is no file of its own (opencode's: rows of its database) has no identity to cache it by: read each time.
  const stats = await fs.stat(file).catch(() => null);
  return (stats ? await cachedSession(fileIdentity(file, stats), load) : (await load()).session).lines;
}

/** The names of `.ai-zen/sessions/` files git tracks: sessions that came with the repo. */
async function trackedSessionFiles(root: string, env: Env): Promise<Set<string>> {
  const git = await runProcess('git', ['ls-files', '-z', '--', '.ai-zen/sessions'], {
    cwd: root,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0' },
  });
  if (git.exitCode !== 0) return new Set();
  return new Set(
    git.stdout
      .split('\0')
      .filter(Boolean)
      .map((name) => path.basename(name)),
  );
}
