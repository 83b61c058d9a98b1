// The typed event catalogue: each event is defined once, here, with its schema. The pipeline's
// onBeforeHandoff / onHandoff / onMigrated, the daemon's notifications and hooks, IPC
// subscriptions and logs all read from it.
import { z } from 'zod';
import { compiledOnFirstUse } from './compiled-schema.js';
import { ExecutorName, HandoffChecks, HandoffCost } from './session/format.js';

/**
 * What set a handoff off: the session crossed its threshold, sat idle while its cache was warm, was
 * about to be compacted (the agent's PreCompact hook), or a person asked.
 */
export const HandoffTrigger = z.enum(['threshold', 'idle', 'precompact', 'hand']);

/** What a fork of an idle session cost to write its document: its own turn's tokens and their price in USD (null: not known). */
export const ForkCost = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheWrite5m: z.number().int().nonnegative(),
  cacheWrite1h: z.number().int().nonnegative(),
  dollars: z.number().nonnegative().nullable(),
});
export type ForkCost = z.infer<typeof ForkCost>;
export type HandoffTrigger = z.infer<typeof HandoffTrigger>;

export const EventSchemas = {
  /** A session's latest prompt_tokens went past its maxContextTokens (R19, D1). */
  'session.overflowed': z.object({
    sessionId: z.string(),
    promptTokens: z.number(),
    maxContextTokens: z.number(),
    source: z.string(),
    /** X3: which agent; its transcript; the percent reached and the agent's thresholds. */
    agent: z.string().optional(),
    transcript: z.string().optional(),
    percent: z.number().optional(),
    handoffAt: z.number().nullable().optional(),
    compactsAt: z.number().nullable().optional(),
  }),
  /** S5: a session's context reached its warning threshold (once per crossing; re-armed below it). */
  'session.warned': z.object({
    sessionId: z.string(),
    /** 'ai-zen', or a watched agent's name (config/agent-names.ts): 'claude-code', 'codex', … */
    agent: z.string(),
    /** Whole percent of the window reached (rounded down). */
    percent: z.number(),
    /** The threshold crossed: config `warnAt` (ai-zen) or `agents.<agent>.warnAt`. */
    warnAt: z.number(),
    promptTokens: z.number(),
    maxContextTokens: z.number(),
    /** Another agent's session: where the daemon hands it over (percent); null for ai-zen's own (at the window). */
    handoffAt: z.number().nullable(),
    transcript: z.string().optional(),
  }),
  /** Another agent compacted its own history (Claude `compact_boundary`, X3): what it dropped is gone from its context. */
  'session.compacted': z.object({
    sessionId: z.string(),
    agent: z.string(),
    transcript: z.string(),
    at: z.string(),
    percent: z.number().nullable(),
    /** The session's handoff document, when it was handed off: the record of the state before this compaction. */
    document: z.string().optional(),
  }),
  /** onBeforeHandoff (R21): a handoff is starting; show progress. */
  'handoff.started': z.object({
    sessionId: z.string(),
    mode: z.enum(['handoff', 'migrate']),
    executor: ExecutorName,
  }),
  /** One-way downgrade self → summary → offline (R11), announced to the user. */
  'handoff.downgraded': z.object({
    sessionId: z.string(),
    from: ExecutorName,
    to: ExecutorName,
    reason: z.string(),
  }),
  /** onHandoff (R23): the document is written and verified. */
  'handoff.written': z.object({
    sessionId: z.string(),
    mode: z.enum(['handoff', 'migrate']),
    path: z.string(),
    absolutePath: z.string(),
    executor: ExecutorName,
    cost: HandoffCost,
    /** X3: which agent's session, and the command that starts its successor fresh. */
    agent: z.string().optional(),
    successorCommand: z.string().optional(),
    /** F1–F4: what the document still fails; absent when the writer did not check (another tool's line). */
    checks: HandoffChecks.optional(),
    /** Share of the window the session had reached. */
    percent: z.number().optional(),
    /** Written because the agent was compacting the session (its PreCompact hook): the state before the compaction. */
    beforeCompaction: z.boolean().optional(),
    /** What set it off (another agent's session; ai-zen's own say it through `mode`). */
    trigger: HandoffTrigger.optional(),
    /** Handed off while idle: what continuing fresh starts with, and what resuming re-writes to the cache (USD null: no price known). */
    idleReturn: z.object({ freshTokens: z.number().nullable(), resumeTokens: z.number(), resumeDollars: z.number().nullable() }).optional(),
    /** Written by a fork of the session (executor `fork`): its own turn's tokens as the API counted them, and their price (null: not known). */
    forkCost: ForkCost.optional(),
  }),
  /** onMigrated (R25): the new session is live. */
  'session.migrated': z.object({
    oldId: z.string(),
    newId: z.string(),
    path: z.string(),
  }),
  'handoff.failed': z.object({
    sessionId: z.string(),
    mode: z.enum(['handoff', 'migrate']),
    reason: z.string(),
  }),
  /** The daemon committed a handoff document alone (D3). */
  'handoff.committed': z.object({
    path: z.string(),
    commit: z.string(),
  }),
  /** The daemon could not, or must not, commit the document yet (D3); it retries later. */
  'handoff.commit-deferred': z.object({
    path: z.string(),
    reason: z.string(),
  }),
  error: z.object({
    message: z.string(),
  }),
} as const;

export type EventName = keyof typeof EventSchemas;

const compiledEventSchemas = Object.fromEntries(
  Object.entries(EventSchemas).map(([name, schema]) => [name, compiledOnFirstUse(schema)]),
) as { [N in EventName]: () => (typeof EventSchemas)[N] };

/** The catalogue's schema of one event, compiled on first use (compiled-schema.ts): every event sent or received is checked by it. */
export function eventSchema<N extends EventName>(name: N): (typeof EventSchemas)[N] {
  return compiledEventSchemas[name]();
}
export type EventPayload<N extends EventName> = z.infer<(typeof EventSchemas)[N]>;
export type AnyEvent = { [N in EventName]: { name: N; payload: EventPayload<N> } }[EventName];
export type Listener<N extends EventName> = (payload: EventPayload<N>) => void;

/** The events an EventBus handed to its listeners: their payloads came out of the catalogue's parse. */
const checkedEvents = new WeakSet<AnyEvent>();

/** True when `event` is one an EventBus checked against the catalogue (a second check would find the same). */
export function isCheckedEvent(event: AnyEvent): boolean {
  return checkedEvents.has(event);
}

/** A small typed bus. A listener that throws is reported to `onListenerError`, never to the emitter. */
export class EventBus {
  private readonly listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  private readonly anyListeners = new Set<(event: AnyEvent) => void>();

  constructor(private readonly onListenerError: (error: unknown, event: EventName) => void = () => {}) {}

  on<N extends EventName>(name: N, listener: Listener<N>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    const entry = listener as (payload: unknown) => void;
    set.add(entry);
    return () => set.delete(entry);
  }

  onAny(listener: (event: AnyEvent) => void): () => void {
    this.anyListeners.add(listener);
    return () => this.anyListeners.delete(listener);
  }

  emit<N extends EventName>(name: N, payload: EventPayload<N>): void {
    const parsed = eventSchema(name).parse(payload) as EventPayload<N>;
    for (const listener of [...(this.listeners.get(name) ?? [])]) this.call(name, () => listener(parsed));
    const event = { name, payload: parsed } as AnyEvent;
    checkedEvents.add(event);
    for (const listener of [...this.anyListeners]) this.call(name, () => listener(event));
  }

  private call(name: EventName, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.onListenerError(error, name);
    }
  }
}
