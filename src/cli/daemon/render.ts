// What `ai-zen-daemon status|sessions|handoffs|facts` print for a person. Scripts use --json.
import path from 'node:path';
import { formatTokens } from '../../format-tokens.js';
import { idleReturnChoice } from '../../daemon/handoffs/idle-return.js';
import { forkCostWords } from '../../daemon/handoffs/fork-cost-words.js';
import { describeChecks } from '../../handoff/checks/describe-checks.js';
import { isFolded, type SessionStanding, STATE_WORDS } from '../../daemon/side-channels/session-states.js';
import type { FactsInfo, HandoffInfo, SessionInfo, StatusInfo } from '../../daemon/side-channels/status-schema.js';
import { shortId } from '../../short-id.js';

const BAR_CELLS = 8;

/** `██████░░` for 78%: one cell per 12.5%, full past 100%. */
export function contextBar(percent: number, cells = BAR_CELLS): string {
  const filled = Math.max(0, Math.min(cells, Math.round((percent / 100) * cells)));
  return '█'.repeat(filled) + '░'.repeat(cells - filled);
}

export function renderStatus(status: StatusInfo): string {
  const lines: string[] = [];
  lines.push(`ai-zen-daemon ${status.version} · pid ${status.pid} · up ${since(status.startedAt)} · ${status.repo}`);
  lines.push(`socket  ${status.socket}`);
  lines.push(`log     ${status.log}`);
  const model =
    status.model === null ? 'no model configured: handoffs are offline' : `${status.model} (default executor ${status.executor})`;
  lines.push(`model   ${model}`);
  if (status.config) lines.push(`config  ${status.config}`);
  lines.push(
    `commit  ${commitWhere(status)} · notifications ${status.notifications ? 'on' : 'off'}${status.ready ? '' : ' · still reading the sessions'}`,
  );
  if (status.migration)
    lines.push(`now     ${status.migration.mode} of session ${shortId(status.migration.sessionId)} since ${status.migration.since}`);
  lines.push('');
  // A session handed off to its successor, or whose process exited, is folded out of the list (`--all` shows it).
  const open = status.sessions.filter((session) => !isFolded(standing(session)));
  const shownFolded = status.sessions.filter((session) => isFolded(standing(session)));
  const exited = status.exitedSessions ?? 0;
  const counts = [
    status.closedSessions > 0 ? `${status.closedSessions} ${STATE_WORDS['handed-off']}` : null,
    exited > 0 ? `${exited} ${STATE_WORDS.exited}` : null,
  ].filter((part): part is string => part !== null);
  const hidden = status.closedSessions + exited - shownFolded.length;
  const more = counts.length > 0 ? `, ${counts.join(', ')}${hidden > 0 ? ': status --all shows them' : ''}` : '';
  lines.push(`sessions (${open.length} ${STATE_WORDS.open}${more})`);
  if (open.length === 0) lines.push('  none');
  for (const session of [...open, ...shownFolded]) lines.push(`  ${sessionLine(session)}`);
  lines.push('');
  lines.push(`git     ${gitLine(status.git)}`);
  lines.push(`ports   ${portsLine(status.ports)}`);
  lines.push('');
  const older = status.handoffCount - status.handoffs.length;
  lines.push(`handoffs (${status.handoffCount}${older > 0 ? `, last ${status.handoffs.length} shown` : ''})`);
  if (status.handoffs.length === 0) lines.push('  none');
  // Oldest first, the newest last, nearest the prompt: the order of --json and of `handoffs`.
  for (const handoff of status.handoffs) lines.push(`  ${handoffLine(handoff)}`);
  return `${lines.join('\n')}\n`;
}

/** Every session but those folded out (exited, handed off), and how many those are; `all`: them too. */
export function renderSessions(sessions: readonly SessionInfo[], all = false): string {
  const shown = all ? sessions : sessions.filter((session) => !isFolded(standing(session)));
  const folded = sessions.length - shown.length;
  const note = folded > 0 ? `${folded} more ${STATE_WORDS.exited} or ${STATE_WORDS['handed-off']}: sessions --all shows them\n` : '';
  if (shown.length === 0) return `no ${all ? '' : `${STATE_WORDS.open} `}sessions\n${note}`;
  return `${shown.map((session) => sessionLine(session)).join('\n')}\n${note}`;
}

export function renderHandoffs(handoffs: readonly HandoffInfo[]): string {
  if (handoffs.length === 0) return 'no handoffs\n';
  // Oldest first, as --json lists them and the documents' timestamped names sort.
  return `${handoffs.map(handoffLine).join('\n')}\n`;
}

export function renderFactsInfo(facts: FactsInfo): string {
  return `git     ${gitLine(facts.git)}\nports   ${portsLine(facts.ports)}\ncaptured ${facts.capturedAt}\n`;
}

/** `abcd1234  ██████░░  78%   99k/128k  gpt-4o  owner: live`. */
export function sessionLine(session: SessionInfo, now: number = Date.now()): string {
  const id = shortId(session.id);
  let usage: string;
  if (session.percent !== null && session.promptTokens !== null && session.maxContextTokens !== null) {
    usage = `${contextBar(session.percent)} ${`${session.percent}%`.padStart(4)}  ${`${formatTokens(session.promptTokens)}/${formatTokens(session.maxContextTokens)}`.padEnd(9)}`;
  } else if (session.maxContextTokens !== null) {
    usage = `${contextBar(0)}   0%  ${`0/${formatTokens(session.maxContextTokens)}`.padEnd(9)}`;
  } else {
    usage = `${'?'.repeat(BAR_CELLS)}    ?  ${'?'.padEnd(9)}`;
  }
  const notes: string[] = [];
  if (session.agent && session.agent !== 'ai-zen') notes.push(agentNote(session));
  if (session.model) notes.push(session.model);
  const state = standing(session);
  if (state === 'handed-off') notes.push(`${STATE_WORDS['handed-off']} → ${session.successorId ? shortId(session.successorId) : '?'}`);
  if (state === 'exited') notes.push(STATE_WORDS.exited);
  if (session.previous)
    notes.push(`continues ${session.previous.sessionId ? shortId(session.previous.sessionId) : '?'} from ${session.previous.path}`);
  else notes.push(session.owner === 'live' || session.owner === 'daemon' ? `owner: ${session.owner}` : 'owner: none');
  if (state === 'over-threshold' || state === 'overflowed') notes.push(STATE_WORDS[state]);
  if (session.action) notes.push(session.action);
  const idle = idleNote(session, now);
  if (idle) notes.push(idle);
  if (session.successorCommand) notes.push(`continue with: ${session.successorCommand}`);
  return `${id}  ${usage}  ${notes.join(' · ')}`;
}

/**
 * `cache warm · 12m left` while a session waits to be handed off idle; once it was (its action says
 * when, and the document), the choice: `/clear continues fresh (~22k tokens); resuming this session
 * re-writes ~412k tokens (~$3.30)`.
 */
export function idleNote(session: SessionInfo, now: number): string | null {
  if (session.idle?.state === 'handed-off' && session.idle.onReturn) return idleReturnChoice(session.idle.onReturn, '/clear');
  const until = session.idle?.state === 'waiting' && session.idle.cacheUntil ? Date.parse(session.idle.cacheUntil) : Number.NaN;
  return until > now ? `cache warm · ${Math.ceil((until - now) / 60_000)}m left` : null;
}

/** Where a session stands: as the daemon says, or (an older daemon) from the fields it has. */
export function standing(session: SessionInfo): SessionStanding {
  if (session.state) return session.state;
  if (session.closed) return 'handed-off';
  if (!session.overflowed) return 'open';
  return session.percent !== null && session.percent < 100 ? 'over-threshold' : 'overflowed';
}

/** `claude-code (hands off at 70%, compacts itself at ~83%, compacted 1×)`. */
function agentNote(session: SessionInfo): string {
  const parts: string[] = [];
  if (session.handoffAt != null) parts.push(`hands off at ${session.handoffAt}%`);
  if (session.compactsAt != null) parts.push(`compacts itself at ~${session.compactsAt}%`);
  if ((session.compactions ?? 0) > 0) parts.push(`compacted ${session.compactions}×`);
  const agent = session.agent ?? 'unknown agent';
  return parts.length > 0 ? `${agent} (${parts.join(', ')})` : agent;
}

/** `auto-commit on` (the branch checked out), `auto-commit to ai-zen/handoffs` (a side ref) or `auto-commit off`. */
function commitWhere(status: StatusInfo): string {
  if (!status.autoCommit) return 'auto-commit off';
  return status.commitMode === 'ref' && status.commitRef ? `auto-commit to ${shortRef(status.commitRef)}` : 'auto-commit on';
}

/** `refs/heads/ai-zen/handoffs` → `ai-zen/handoffs`, the name `git push origin` takes. */
function shortRef(ref: string): string {
  return ref.replace(/^refs\/heads\//, '');
}

/** `.ai-zen/handoffs/….md  self  committed 1a2b3c4` or `… not committed: why`. */
export function handoffLine(handoff: HandoffInfo): string {
  const checked = describeChecks(handoff.checks);
  return checked === null ? commitLine(handoff) : `${commitLine(handoff)}  ${checked}`;
}

function commitLine(handoff: HandoffInfo): string {
  const redacted = handoff.redactions ? `  ${handoff.redactions} secret${handoff.redactions === 1 ? '' : 's'} redacted` : '';
  const after = handoff.downgrades?.length
    ? ` (after ${handoff.downgrades.map((entry) => `${entry.from} failed: ${entry.reason}`).join('; ')})`
    : '';
  const cost = handoff.forkCost ? `  ${forkCostWords(handoff.forkCost)}` : '';
  const where = `${handoff.path}  ${handoff.executor}${after}${cost}${redacted}`;
  switch (handoff.state) {
    case 'committed':
      return `${where}  committed ${handoff.commit?.slice(0, 7) ?? ''}${handoff.ref ? ` on ${shortRef(handoff.ref)}` : ''}${handoff.successorCommand ? `  continue with: ${handoff.successorCommand}` : ''}`;
    case 'pending':
      return `${where}  committing…`;
    case 'deferred':
      return `${where}  not committed: ${handoff.reason ?? 'unknown reason'}`;
    case 'off':
      return `${where}  not committed: ${handoff.reason ?? 'auto-commit is off'}`;
  }
}

const SUBJECT_SHOWN = 60;

function gitLine(git: FactsInfo['git']): string {
  if (!git.known) return `unknown (${git.why})`;
  const facts = git.value;
  const parts: string[] = [];
  const branch = facts.branch ?? 'detached HEAD';
  parts.push(
    facts.head ? `${branch} @ ${facts.head.shortSha} ${JSON.stringify(shortSubject(facts.head.subject))}` : `${branch} (no commits yet)`,
  );
  const dirty = [
    facts.staged.length > 0 ? `${facts.staged.length} staged` : null,
    facts.unstaged.length > 0 ? `${facts.unstaged.length} unstaged` : null,
    facts.untracked.length > 0 ? `${facts.untracked.length} untracked` : null,
    facts.conflicted && facts.conflicted.length > 0 ? `${facts.conflicted.length} conflicted` : null,
  ].filter((part): part is string => part !== null);
  parts.push(dirty.length > 0 ? dirty.join(', ') : 'clean');
  if (facts.upstream) parts.push(`${facts.upstream} ahead ${facts.ahead ?? '?'} behind ${facts.behind ?? '?'}`);
  if (facts.operation) parts.push(`${facts.operation} in progress`);
  return parts.join(' · ');
}

/** A commit subject as one status line holds it: the first 60 characters (`status --json` has it whole). */
function shortSubject(subject: string): string {
  const characters = [...subject];
  return characters.length <= SUBJECT_SHOWN
    ? subject
    : `${characters
        .slice(0, SUBJECT_SHOWN - 1)
        .join('')
        .trimEnd()}…`;
}

function portsLine(ports: FactsInfo['ports']): string {
  if (!ports.known) return `unknown (${ports.why})`;
  if (ports.value.length === 0) return 'none listening';
  return ports.value.map((port) => `${port.port} (${path.basename(port.command)}, pid ${port.pid})`).join(', ');
}

function since(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d`;
}
