// Which fresh session continues a handed-off one in the same terminal: the agent process whose
// session was handed off (its Stop hook said which process it runs under) starts a fresh session with
// `/clear` or `/new`, and that session's SessionStart hook comes from the same process. The first
// fresh session of that process, while the handed-off session has not gone on past its document, is
// the successor: it is told the document, and linked to the session it continues. Once, per handoff.
import type { WatchedAgent } from '../../config/agent-names.js';

export interface HandedOffProcess {
  readonly agent: WatchedAgent;
  /** The agent process (probe/agent-process.ts) the handed-off session ran in. */
  readonly agentPid: number;
  readonly sessionId: string;
  readonly transcript: string;
  /** The document, project-relative. */
  readonly document: string;
  /** The session's messages when its document was done: more later means the person went on in it. */
  readonly messageCount: number;
}

/** Agent processes remembered as having started a session (the oldest forgotten first). */
const STARTED_KEPT = 1_000;

export class ProcessSuccessors {
  private readonly byProcess = new Map<string, HandedOffProcess>();
  private readonly started = new Set<string>();
  /** The breakpoint a successor's first prompt still has to carry, by agent process (agent-hooks.ts: UserPromptSubmit). */
  private readonly firstPrompts = new Map<string, string>();

  /**
   * A session started in `agentPid`: whether that process had started one before — then this start
   * is a fresh session in the same terminal (`/clear`), whatever the agent calls it (Copilot says
   * `new` for both).
   */
  startedBefore(agent: WatchedAgent, agentPid: number): boolean {
    const key = keyOf(agent, agentPid);
    const before = this.started.delete(key);
    this.started.add(key);
    if (this.started.size > STARTED_KEPT) this.started.delete(this.started.values().next().value!);
    return before;
  }

  /** A session's document is done (written, checked): the next fresh session of its process continues it. */
  handedOff(entry: HandedOffProcess): void {
    this.byProcess.set(keyOf(entry.agent, entry.agentPid), entry);
  }

  /**
   * A fresh session started in `agentPid`: the handed-off session it continues, or null (another
   * process, no handoff, the person went on in the old session, or the successor was already claimed).
   */
  claim(
    agent: WatchedAgent,
    agentPid: number,
    transcript: string,
    messagesNow: (transcript: string) => number | null,
  ): HandedOffProcess | null {
    const key = keyOf(agent, agentPid);
    const entry = this.byProcess.get(key);
    if (!entry || entry.transcript === transcript) return null;
    this.byProcess.delete(key);
    const now = messagesNow(entry.transcript);
    return now === null || now <= entry.messageCount ? entry : null;
  }

  /**
   * What the next prompt in `agentPid` carries: the breakpoint its successor was given at its start,
   * for an agent that drops a SessionStart's context after `/clear` (one whose hooks answer prompts).
   */
  awaitPrompt(agent: WatchedAgent, agentPid: number, context: string): void {
    this.firstPrompts.set(keyOf(agent, agentPid), context);
  }

  /** The context the first prompt after a successor's start carries, once. */
  takePrompt(agent: WatchedAgent, agentPid: number): string | null {
    const key = keyOf(agent, agentPid);
    const context = this.firstPrompts.get(key) ?? null;
    this.firstPrompts.delete(key);
    return context;
  }

  /** The document a session was handed off to, while its process has not started the successor (a compaction names it). */
  documentOf(transcript: string): string | null {
    for (const entry of this.byProcess.values()) if (entry.transcript === transcript) return entry.document;
    return null;
  }
}

const keyOf = (agent: WatchedAgent, agentPid: number) => `${agent}:${agentPid}`;
