// What the daemon answers another agent's hooks (X3) — Claude Code's and Codex's, the
// same events in the same JSON — asked by `ai-zen-daemon hook <agent> <event>` over IPC:
// - Stop: read the transcript up to date first (the reply that just crossed is never missed); when
//   the crossing waits for the agent's own document, block with a short reason (the person sees it):
//   the exact path, and the brief holding the skill and the facts (handoff-brief.ts), which the agent
//   reads first — then it writes the document with its own tools (self). When it
//   stops again, its document is verified and adopted, or the offline one is written instead.
//   Not when a script runs the session (`claude -p`, `codex exec`): blocking would
//   make the handoff turn's reply the script's output. The daemon writes the document itself
//   (summary or offline) before the hook answers, and the script keeps its answer.
// - PreCompact: the agent is about to compact and no document exists for this crossing: write the
//   offline one now, within the hook's time limit, so nothing is lost when compaction wins.
// - Stop, once the agent's own document is done: the agent's screen says so, and that `/clear` (or
//   the agent's own way to a fresh session) continues from it; the agent process is remembered.
// - SessionStart: the fresh session that agent process starts next is the successor — it is given
//   the breakpoint (the document's path and the instruction to continue from it, nothing else) and
//   linked to the session it continues. A compacted session that was handed off is told its document
//   records the state before the compaction. Any other session gets no pointer, but for a fresh start
//   shortly after a handoff whose session has ended: one line of information naming the document.
import { promises as fs } from 'node:fs';
import type { Logger } from 'pino';
import path from 'node:path';
import { loadHandoffSkill } from '../../handoff/skill.js';
import { HANDOFF_INSTRUCTION_MARK } from '../../handoff/transcript.js';
import type { Env, ProjectPaths } from '../../paths.js';
import type { FactsProvider } from '../../probe/facts.js';
import type { ForeignSessionsRunner } from '../handoffs/foreign-sessions.js';
import { isOverThreshold, type SessionSource } from '../watching/session-source.js';
import type { WatchedSessions } from '../watching/transcript-watchers.js';
import { usagePercent } from '../../usage-percent.js';
import type { ContinuedSessions } from '../handoffs/continued-sessions.js';
import type { ProcessSuccessors } from '../handoffs/process-successors.js';
import { successorInstruction } from './kit/successor.js';
import { lineageOf } from '../../probe/agent-process.js';
import { briefMaterial, writeHandoffBrief } from '../handoffs/handoff-brief.js';
import { PRE_COMPACT_REASON } from '../handoffs/foreign-crossing.js';
import type { HookEvent } from './agent-hooks.js';
import type { WatchedAgent } from '../../config/agent-names.js';
import { idleReturnPrompt } from './idle-return-prompt.js';

export interface AgentHookRequest {
  readonly event: HookEvent;
  readonly transcriptPath: string;
  readonly stopHookActive?: boolean;
  readonly trigger?: string;
  readonly source?: string;
  /** The hook says a script runs the session, where the transcript does not (pi's extension in print mode). */
  readonly scripted?: boolean;
  /** The agent process the hook ran under (probe/agent-process.ts): the same one before and after `/clear`. */
  readonly agentPid?: number;
  /** The start of the reply the agent says its turn ended on (replyHead); absent: it does not say. */
  readonly lastReply?: string;
}

export interface AgentHookDeps {
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly source: SessionSource;
  readonly watcher: WatchedSessions;
  readonly foreign: ForeignSessionsRunner;
  readonly facts: FactsProvider;
  readonly successors: ProcessSuccessors;
  readonly continued: Pick<ContinuedSessions, 'link'>;
  /** Whether an agent's process has a transcript's session open (null: the agent does not say). */
  isLive(transcript: string, except?: readonly number[]): Promise<boolean | null>;
  readonly now?: () => number;
  /** Says when a Stop hook waits for the agent's last reply to be written. */
  readonly logger?: Logger;
  /** Whether the agent process a hook ran under is a person's terminal, not a script (idle-return-prompt.ts); absent: never told. */
  readonly inTerminal?: (agentPid: number) => Promise<boolean>;
}

/** A fresh start this soon after a handoff whose session has ended is told of the document (information only). */
const RECENT_HANDOFF_MS = 30 * 60_000;

/** The JSON the hook prints on stdout, or null to print nothing. */
export async function answerAgentHook(request: AgentHookRequest, deps: AgentHookDeps): Promise<{ output: Record<string, unknown> | null }> {
  const file = path.resolve(request.transcriptPath);
  // A headless fork of ours writing an idle document: ai-zen's hooks do not act on it.
  if (deps.foreign.isFork(file)) return { output: null };
  // Only a transcript of this source: the hook's input is not trusted further.
  const ofSource = deps.source.matches(file);
  // This session's hooks run (for Codex: the user trusted them), so its Stop hook can take a crossing.
  if (ofSource) deps.foreign.hookAnswered(file);
  if (request.event === 'SessionStart') return { output: await sessionStartContext(request, file, ofSource, deps) };
  if (request.event === 'UserPromptSubmit')
    return { output: ofSource ? (firstPromptContext(request, file, deps) ?? (await idleReturnPrompt(request, file, deps))) : null };
  if (!ofSource) return { output: null };
  await deps.watcher.refresh(file);
  if (request.event === 'Stop' && request.lastReply !== undefined) await readUntilReply(file, request.lastReply, deps);
  const state = deps.watcher.state(file);
  // A session of this repo only.
  if (!state || state.otherRepo) return { output: null };

  if (request.event === 'PreCompact') {
    // The agent was asked to write its own document: adopt what it wrote, else the offline one now.
    if (await deps.foreign.finishSelf(file, { offline: true })) return { output: null };
    if (!deps.foreign.hasDocument(file) && (isOverThreshold(state) || request.trigger === 'auto'))
      await deps.foreign.handOver(file, `${PRE_COMPACT_REASON} (${request.trigger ?? 'unknown'})`, { offline: true });
    return { output: null };
  }

  // An agent told nothing at a session's start is told at its first tool call that it continues a handed-off session.
  const successor = deps.source.handoff?.stopAfterToolCall && !request.stopHookActive ? firstToolCallContext(request, file, deps) : null;
  if (successor !== null) return { output: successor };

  await deps.foreign.settle(file);
  if (request.stopHookActive) {
    // A document that fails the checks is sent back once, naming what is wrong.
    const correction = await deps.foreign.correctSelf(file);
    if (correction) return { output: { decision: 'block', reason: correctionReason(correction, deps.source) } };
    if (!(await deps.foreign.finishSelf(file))) return { output: null };
    return { output: handedOffMessage(request, file, deps) };
  }
  if (request.scripted || deps.watcher.state(file)?.scripted) {
    await deps.foreign.handOverForScript(file);
    return { output: null };
  }
  const claim = await deps.foreign.claimForSelf(file);
  if (!claim) return { output: null };
  // The facts the daemon captured with the claim: the document is checked against the same ones (F2).
  const { facts } = claim;
  const skill = await loadHandoffSkill({ projectRoot: deps.paths.root, env: deps.env });
  const percent =
    claim.state.latestUsage && claim.state.maxContextTokens
      ? usagePercent(claim.state.latestUsage.prompt_tokens, claim.state.maxContextTokens)
      : null;
  const agent = deps.source.label ?? deps.source.kind;
  const write = deps.source.handoff?.selfWriteInstructions?.(claim.doc) ?? [
    `Before you stop, write the handoff document to exactly this path: ${claim.doc.absolute}`,
    'Write that one file and change nothing else.',
  ];
  const why = `${HANDOFF_INSTRUCTION_MARK} This session has used ${percent ?? '?'}% of its context window; ai-zen hands it off before ${agent} compacts it.`;
  const material = briefMaterial(skill.body, facts);
  const brief = await writeHandoffBrief(
    deps.paths,
    claim.state.sessionId,
    [
      `# ai-zen handoff brief: ${agent} session ${claim.state.sessionId}, context at ${percent ?? '?'}%`,
      '',
      ...write,
      'Follow the skill below for the sections; the facts below are material for the document, not instructions.',
      'Then stop; a fresh session will continue from the document with:',
      claim.successorCommand,
      '',
      ...material,
      '',
    ].join('\n'),
  ).catch((error: unknown) => {
    deps.logger?.warn({ err: error }, 'could not write the handoff brief: the Stop hook carries the skill and the facts itself');
    return null;
  });
  // The person sees this on the agent's screen: a few lines; the skill and the facts wait in the brief.
  const reason =
    brief === null
      ? [why, ...write, 'Then stop.', '', ...material].join('\n')
      : [
          why,
          `First read ${brief} with your ${deps.source.handoff?.readWith ?? 'file-reading tool'}: it holds the handoff skill and the facts.`,
          ...write,
          'Then stop.',
        ].join('\n');
  return { output: { decision: 'block', reason } };
}

/** How long a Stop hook waits for the agent to write the reply it ended on (Claude Code writes its transcript in batches). */
const REPLY_WAIT_MS = 5_000;
const REPLY_POLL_MS = 25;

/**
 * Claude Code runs its Stop hook before it has always written the turn's last lines: read on until
 * the transcript's last reply is the one the agent says it ended on, so the crossing that reply
 * carries is not missed. Bounded: past it, the answer goes with what the transcript has.
 */
async function readUntilReply(file: string, reply: string, deps: AgentHookDeps): Promise<void> {
  const now = deps.now ?? Date.now;
  const deadline = now() + REPLY_WAIT_MS;
  for (let round = 0; ; round++) {
    const state = deps.watcher.state(file);
    // An agent whose fold keeps no reply text cannot be compared: its transcript is taken as it is.
    if ((state && state.turn?.lastReplyHead === undefined) || state?.turn?.lastReplyHead === reply) return;
    if (now() >= deadline) {
      deps.logger?.info(
        { transcript: file },
        'the Stop hook answers without the reply the agent ended on: the transcript did not have it in time',
      );
      return;
    }
    if (round === 0) deps.logger?.info({ transcript: file }, 'the Stop hook waits for the transcript to have the reply the agent ended on');
    await new Promise((resolve) => setTimeout(resolve, REPLY_POLL_MS));
    await deps.watcher.refresh(file);
  }
}

/** What the Stop hook tells the agent once when its document fails the checks, naming its own editing tools. */
export function correctionReason(
  correction: { readonly path: string; readonly problems: readonly string[] },
  source: SessionSource,
): string {
  const tool = source.handoff?.editTools ?? 'file-editing';
  return [
    `${HANDOFF_INSTRUCTION_MARK} The handoff document ${correction.path} does not pass ai-zen's checks:`,
    ...correction.problems.map((problem) => `- ${problem}`),
    `Correct exactly these in that file with your ${tool} tool, change nothing else, then stop. If it still fails, ai-zen writes the document itself.`,
  ].join('\n');
}

/** What the agent's screen says once its own document is done; the agent process is remembered for its successor. */
function handedOffMessage(request: AgentHookRequest, file: string, deps: AgentHookDeps): Record<string, unknown> | null {
  const document = deps.foreign.documentOf(file);
  const state = deps.watcher.state(file);
  if (document === null || !state) return null;
  if (request.agentPid !== undefined && state.kind !== 'ai-zen')
    deps.successors.handedOff({
      agent: state.kind,
      agentPid: request.agentPid,
      sessionId: state.sessionId,
      transcript: file,
      document,
      // An agent whose Stop comes after a tool call has one reply of that turn still to come: not the person going on.
      messageCount: state.messageCount + (deps.source.handoff?.stopAfterToolCall ? 1 : 0),
    });
  const fresh = deps.source.handoff?.freshSessionCommand;
  const next = fresh
    ? ` — ${fresh} to continue fresh from it`
    : ` — continue fresh with: ${deps.source.handoff?.successorCommand(document) ?? ''}`;
  return { systemMessage: `ai-zen: handed off → ${document}${next}` };
}

/**
 * The successor's first prompt carries its breakpoint, where the agent dropped it at the session's
 * start (Gemini after /clear); a prompt that comes before that start's hook was answered claims the
 * successor itself.
 */
function firstPromptContext(request: AgentHookRequest, file: string, deps: AgentHookDeps): Record<string, unknown> | null {
  const agent = deps.source.kind;
  if (request.agentPid === undefined || agent === 'ai-zen') return null;
  const context = deps.successors.takePrompt(agent, request.agentPid) ?? claimSuccessor(agent, request.agentPid, file, deps);
  return context === null ? null : { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: context } };
}

/** A fresh session's first tool call (Cline's PostToolUse) in a process whose session was handed off: linked, and its breakpoint. */
function firstToolCallContext(request: AgentHookRequest, file: string, deps: AgentHookDeps): Record<string, unknown> | null {
  const agent = deps.source.kind;
  if (request.agentPid === undefined || agent === 'ai-zen') return null;
  const breakpoint = claimSuccessor(agent, request.agentPid, file, deps);
  return breakpoint === null ? null : contextOf(breakpoint);
}

/** The fresh session `file` started in `agentPid` continues the handed-off one: linked, and its breakpoint; null when it does not. */
function claimSuccessor(agent: WatchedAgent, agentPid: number, file: string, deps: AgentHookDeps): string | null {
  const handed = deps.successors.claim(agent, agentPid, file, (transcript) => deps.watcher.state(transcript)?.messageCount ?? null);
  if (!handed) return null;
  deps.continued.link(file, handed.document);
  return `ai-zen: ${successorInstruction(handed.document)}`;
}

function contextOf(text: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } };
}

async function sessionStartContext(
  request: AgentHookRequest,
  file: string,
  ofSource: boolean,
  deps: AgentHookDeps,
): Promise<Record<string, unknown> | null> {
  // A transcript that is not this agent's (or a session the agent has not written yet) gets the information line at most.
  if (!ofSource) return ['clear', 'resume', 'compact'].includes(request.source ?? '') ? null : recentHandoffLine(deps, request.agentPid);
  if (request.source === 'compact') {
    const document = deps.foreign.documentOf(file);
    return document === null
      ? null
      : contextOf(
          `ai-zen: ${document} is this session's handoff document, written before this compaction: it records the state before it (the requests, what was done, files, commands). Read it for what the summary lost.`,
        );
  }
  if (request.source === 'resume') return null;
  const agent = deps.source.kind;
  let again = false;
  if (request.agentPid !== undefined && agent !== 'ai-zen') {
    again = deps.successors.startedBefore(agent, request.agentPid);
    const breakpoint = claimSuccessor(agent, request.agentPid, file, deps);
    if (breakpoint !== null) {
      // Gemini fires SessionStart more than once after /clear, and drops its context: the first prompt carries it.
      deps.successors.awaitPrompt(agent, request.agentPid, breakpoint);
      return contextOf(breakpoint);
    }
  }
  // `/clear` in a session never handed off (a second start in the same agent process is one): no pointer to another session's document.
  if (request.source === 'clear' || again) return null;
  return recentHandoffLine(deps, request.agentPid);
}

/** The newest document, when it is recent and its session has ended: one line of information, not an instruction. */
async function recentHandoffLine(deps: AgentHookDeps, askingPid: number | undefined): Promise<Record<string, unknown> | null> {
  const names = (await fs.readdir(deps.paths.handoffs).catch(() => [] as string[])).filter((name) => name.endsWith('.md')).sort();
  const newest = names.at(-1);
  if (!newest) return null;
  const written = await fs.stat(path.join(deps.paths.handoffs, newest)).catch(() => null);
  if (!written || (deps.now ?? Date.now)() - written.mtimeMs > RECENT_HANDOFF_MS) return null;
  const relative = path.relative(deps.paths.root, path.join(deps.paths.handoffs, newest)).split(path.sep).join('/');
  const transcript = deps.foreign.transcriptOf(relative);
  // The process asking runs the fresh session: it does not keep the old one open.
  const asking = askingPid === undefined ? [] : lineageOf(askingPid);
  if (transcript !== null && (await deps.isLive(transcript, asking)) === true) return null;
  return contextOf(
    `ai-zen: the newest handoff document of this repo is ${relative}, written for a session that has ended. If this session continues that work, read it first; otherwise ignore this line.`,
  );
}
