// What `ai-zen-daemon statusline` reads and prints, as pure functions: Claude Code's
// statusline JSON in, one short line out. The input is checked by hand, not with zod: this runs on
// every statusline refresh, and zod's load alone is over the time it has (statusline.ts).
//
// Checked with Claude Code 2.1.332, whose input carries (among more): session_id, transcript_path,
// cwd, model {id, display_name}, workspace {current_dir, project_dir}, version, cost, and
// context_window {context_window_size, current_usage {input_tokens, cache_creation_input_tokens,
// cache_read_input_tokens, output_tokens}, used_percentage, remaining_percentage} (test/cli/
// statusline-claude-input.json is what it sent). Older clients send no context_window.
import { usagePercent } from '../../usage-percent.js';

/** The reading the statusline takes from Claude's input. */
export interface StatuslineReading {
  readonly sessionId: string | null;
  readonly transcriptPath: string | null;
  /** Where the session runs (workspace.project_dir, else cwd, else workspace.current_dir). */
  readonly folder: string | null;
  readonly model: string | null;
  /** Percent of the window used: Claude's own figure, else from its token counts; null: not known yet. */
  readonly usedPercent: number | null;
  readonly contextWindowSize: number | null;
  readonly promptTokens: number | null;
}

/** What the daemon answers (status-schema.ts StatuslineReply), as far as the line needs it. */
export interface StatuslineFacts {
  readonly handoffAt: number | null;
  readonly compactsAt: number | null;
  readonly lastDocumentAt: string | null;
  readonly lastDocumentOfSession: boolean;
  /** The idle handoff: the cache warm until, or handed off while idle at (ISO); absent: neither. */
  readonly cacheUntil?: string | null;
  readonly idleHandedOffAt?: string | null;
}

/** The line when the input is not Claude's statusline JSON at all. */
export const UNREADABLE_LINE = 'ai-zen: no reading';

/** Claude's statusline JSON, read leniently; null when it is not a JSON object. */
export function readStatuslineInput(text: string): StatuslineReading | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  const model = isObject(value.model) ? value.model : {};
  const workspace = isObject(value.workspace) ? value.workspace : {};
  const window = isObject(value.context_window) ? value.context_window : {};
  const usage = isObject(window.current_usage) ? window.current_usage : null;
  const size = positive(window.context_window_size);
  const promptTokens =
    usage === null ? null : count(usage.input_tokens) + count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens);
  const claimed = typeof window.used_percentage === 'number' && Number.isFinite(window.used_percentage) ? window.used_percentage : null;
  const usedPercent =
    claimed !== null ? Math.max(0, Math.floor(claimed)) : promptTokens !== null && size !== null ? usagePercent(promptTokens, size) : null;
  return {
    sessionId: textOf(value.session_id),
    transcriptPath: textOf(value.transcript_path),
    folder: textOf(workspace.project_dir) ?? textOf(value.cwd) ?? textOf(workspace.current_dir),
    model: textOf(model.id),
    usedPercent,
    contextWindowSize: size,
    promptTokens,
  };
}

/**
 * `ctx 62% · hands off 70% · compacts ~73% · last doc 14:02`; without a daemon `ctx 62% · ai-zen off`,
 * and with one that did not answer in time `ctx 62% · ai-zen …`.
 */
export function statuslineText(
  reading: StatuslineReading,
  daemon: { readonly kind: 'facts'; readonly facts: StatuslineFacts } | { readonly kind: 'off' } | { readonly kind: 'no-answer' },
  now: Date,
): string {
  const parts = [`ctx ${reading.usedPercent === null ? '–' : `${reading.usedPercent}%`}`];
  if (daemon.kind === 'off') parts.push('ai-zen off');
  else if (daemon.kind === 'no-answer') parts.push('ai-zen …');
  else {
    const { facts } = daemon;
    if (facts.handoffAt !== null) parts.push(`hands off ${facts.handoffAt}%`);
    if (facts.compactsAt !== null) parts.push(`compacts ~${facts.compactsAt}%`);
    const at = facts.lastDocumentAt === null ? null : new Date(facts.lastDocumentAt);
    const idleAt = facts.idleHandedOffAt ? new Date(facts.idleHandedOffAt) : null;
    const cacheUntil = facts.cacheUntil ? new Date(facts.cacheUntil).getTime() : Number.NaN;
    if (idleAt !== null && !Number.isNaN(idleAt.getTime())) parts.push(`handed off while idle ${clock(idleAt, now)}`);
    else if (at !== null && !Number.isNaN(at.getTime()))
      parts.push(`${facts.lastDocumentOfSession ? 'last doc' : 'repo doc'} ${clock(at, now)}`);
    if (idleAt === null && cacheUntil > now.getTime()) parts.push(`cache warm · ${Math.ceil((cacheUntil - now.getTime()) / 60_000)}m left`);
  }
  return parts.join(' · ');
}

/** Local HH:MM, with the month and day before it when it was not today. */
function clock(at: Date, now: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  const time = `${two(at.getHours())}:${two(at.getMinutes())}`;
  const sameDay = at.getFullYear() === now.getFullYear() && at.getMonth() === now.getMonth() && at.getDate() === now.getDate();
  return sameDay ? time : `${two(at.getMonth() + 1)}-${two(at.getDate())} ${time}`;
}

/** The daemon's answer, checked by hand (the reply's shape is status-schema.ts StatuslineReply); null when it is not that. */
export function readStatuslineFacts(result: unknown): StatuslineFacts | null {
  if (!isObject(result)) return null;
  const percent = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return {
    handoffAt: percent(result.handoffAt),
    compactsAt: percent(result.compactsAt),
    lastDocumentAt: textOf(result.lastDocumentAt),
    lastDocumentOfSession: result.lastDocumentOfSession === true,
    cacheUntil: isObject(result.idle) ? textOf(result.idle.cacheUntil) : null,
    idleHandedOffAt: isObject(result.idle) ? textOf(result.idle.handedOffAt) : null,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function positive(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}
