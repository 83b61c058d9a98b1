// The sessions of this repo a command can name — ai-zen's own (its session files) and
// every watched agent's (the daemon's `sessions`, which watches them; without a daemon, Claude
// Code's transcript folder of this repo, read by name only) — resolved as `ai-zen-daemon handoff
// <prefix>` resolves them: the whole id, or a unique prefix of the id or of its short id.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isWatchedAgent, type WatchedAgent } from '../../config/agent-names.js';
import { SessionsReply } from '../../daemon/side-channels/status-schema.js';
import { claudeProjectsDir, mayHoldSessionsOf } from '../../daemon/sources/claude-code/claude-paths.js';
import { agentModule } from '../../daemon/sources/index.js';
import { AiZenError } from '../../errors.js';
import { projectPaths, type Env } from '../../paths.js';
import { SessionStore } from '../../session/store.js';
import { namesSession, shortId } from '../../short-id.js';
import { isDaemonRunning, requestDaemon } from './daemon-client.js';

export type AgentKind = 'ai-zen' | WatchedAgent;

export interface NamedSession {
  readonly id: string;
  readonly agent: AgentKind;
}

export interface KnownSessions {
  readonly sessions: readonly NamedSession[];
  /** Claude Code's and Codex's sessions are known fully only to a running daemon. */
  readonly daemonRunning: boolean;
}

const CLAUDE_TRANSCRIPT = /^([0-9a-fA-F][0-9a-fA-F-]{7,63})\.jsonl$/;

function agentOf(name: string | undefined): AgentKind | null {
  return name === 'ai-zen' || isWatchedAgent(name) ? name : null;
}

/** Claude Code's transcripts of this repo, by file name (no daemon to ask). */
async function claudeSessionsOnDisk(root: string, env: Env): Promise<NamedSession[]> {
  const projects = claudeProjectsDir(env);
  const folders = (await fs.readdir(projects).catch(() => [] as string[])).filter((name) => mayHoldSessionsOf(name, root));
  const found: NamedSession[] = [];
  for (const folder of folders) {
    for (const name of await fs.readdir(path.join(projects, folder)).catch(() => [] as string[])) {
      const id = CLAUDE_TRANSCRIPT.exec(name)?.[1];
      if (id) found.push({ id, agent: 'claude-code' });
    }
  }
  return found;
}

export async function knownSessions(root: string, env: Env): Promise<KnownSessions> {
  const byId = new Map<string, NamedSession>();
  for (const id of await new SessionStore(projectPaths(root)).list()) byId.set(id, { id, agent: 'ai-zen' });
  const daemonRunning = await isDaemonRunning(root, env).catch(() => false);
  if (daemonRunning) {
    const reply = await requestDaemon(root, env, 'sessions', undefined, SessionsReply);
    for (const session of reply.sessions) {
      const agent = agentOf(session.agent ?? session.source);
      if (agent && !byId.has(session.id)) byId.set(session.id, { id: session.id, agent });
    }
  } else {
    for (const session of await claudeSessionsOnDisk(root, env)) if (!byId.has(session.id)) byId.set(session.id, session);
  }
  return { sessions: [...byId.values()], daemonRunning };
}

/** The one session `given` names, or one clear line: none (and where else it may be), or several. */
export function resolveNamedSession(given: string, known: KnownSessions, root: string): NamedSession {
  const exact = known.sessions.find((session) => session.id === given);
  if (exact) return exact;
  const matches = known.sessions.filter((session) => namesSession(given, session.id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    const shown = matches
      .slice(0, 6)
      .map((session) => `${shortId(session.id)} (${session.agent})`)
      .join(', ');
    throw new AiZenError('session', `${JSON.stringify(given)} names ${matches.length} sessions: ${shown}; give more of the id`);
  }
  const hint = known.daemonRunning ? '' : " (Codex sessions are known only to the repo's daemon: ai-zen-daemon start)";
  throw new AiZenError('session', `no session ${JSON.stringify(given)} in ${root}${hint}`);
}

/** The command that reopens another agent's session with its whole history. */
export function resumeCommand(session: NamedSession): string | null {
  return session.agent === 'ai-zen' ? null : (agentModule(session.agent)?.resumeCommand(session.id) ?? null);
}
