// `ai-zen-daemon top` as a pure function: what the daemons answered, the selection
// and the terminal's size in, the screen's lines out. The live loop (daemon-top.ts) only feeds it
// and writes what it returns, so everything a person sees is tested here without a terminal.
import path from 'node:path';
import type { HandoffInfo, SessionInfo } from '../../daemon/side-channels/status-schema.js';
import { ACTIVITY_WORDS, STATE_WORDS } from '../../daemon/side-channels/session-states.js';
import { shortId } from '../../short-id.js';
import { visibleLine } from '../shared/visible-text.js';
import { idleNote } from './render.js';

/** What one daemon answered (or why it did not). */
export interface TopDaemon {
  readonly repo: string;
  readonly sessions: readonly SessionInfo[];
  readonly handoffs: readonly HandoffInfo[];
  /** Set when the daemon did not answer: its line says so instead of its sessions. */
  readonly error?: string;
}

export interface TopView {
  readonly daemons: readonly TopDaemon[];
  /** Index into topRows(view); -1: none (a snapshot). */
  readonly selected: number;
  readonly width: number;
  readonly height: number;
  readonly color: boolean;
  /** Now, in ms: what "working" is judged against. */
  readonly now: number;
  /** One line of news from the last key (a handoff written, the document's path, why not). */
  readonly message?: string | null;
  /** Formats a time of day (local by default; tests pass a fixed one). */
  readonly clock?: (iso: string) => string;
}

/** An open session's activity, or the state's own word (session-states.ts): one vocabulary with `status`. */
export type TopState =
  | (typeof ACTIVITY_WORDS)[keyof typeof ACTIVITY_WORDS]
  | (typeof STATE_WORDS)['handed-off']
  | (typeof STATE_WORDS)['exited'];

/** One session as a row of the view. */
export interface TopRow {
  readonly repo: string;
  readonly session: SessionInfo;
  readonly state: TopState;
  /** The session's latest handoff document (project-relative, as the daemon names it). */
  readonly lastDocument: { readonly path: string; readonly at: string } | null;
  /** When the session's handoff documents were written, oldest first: the markers on its sparkline. */
  readonly handoffTimes: readonly string[];
  /** `cache warm · 12m left` while it waits to be handed off idle. */
  readonly idleNote?: string | null;
}

/** A session with a reading this recent is working; older, idle. */
export const WORKING_WINDOW_MS = 60_000;

const SPARK = '▁▂▃▄▅▆▇█';
/** On the sparkline: the agent compacted its history · a handoff document was written. */
export const COMPACTION_MARK = '↓';
export const HANDOFF_MARK = '◆';
/** On the bar: where ai-zen hands off · where the agent compacts by itself. */
export const HANDOFF_POINT = '┃';
export const COMPACTION_POINT = '╎';

/** Every session of every daemon, in the order the screen lists them: open ones first, then by id. */
export function topRows(daemons: readonly TopDaemon[], now: number): TopRow[] {
  const rows: TopRow[] = [];
  for (const daemon of daemons) {
    const ofDaemon = daemon.sessions.map((session) => topRow(daemon, session, now));
    ofDaemon.sort((a, b) => Number(settled(a.state)) - Number(settled(b.state)) || a.session.id.localeCompare(b.session.id));
    rows.push(...ofDaemon);
  }
  return rows;
}

/** Nothing more happens to it: listed after the others. */
function settled(state: TopState): boolean {
  return state === STATE_WORDS['handed-off'] || state === STATE_WORDS.exited;
}

function topRow(daemon: TopDaemon, session: SessionInfo, now: number): TopRow {
  const documents = daemon.handoffs.filter((handoff) => handoff.sessionId === session.id).sort((a, b) => a.at.localeCompare(b.at));
  const last = documents.at(-1);
  const lastReading = session.usage?.at(-1);
  // Handed off: its successor exists, or a document was written since its last reading (a
  // session that goes on working after one is working again).
  const handedOff =
    session.state === 'handed-off' ||
    (last !== undefined && (lastReading === undefined || Date.parse(lastReading.at) <= Date.parse(last.at)));
  const state: TopState = handedOff
    ? STATE_WORDS['handed-off']
    : session.state === 'exited'
      ? STATE_WORDS.exited
      : lastReading !== undefined && now - Date.parse(lastReading.at) < WORKING_WINDOW_MS
        ? ACTIVITY_WORDS.working
        : ACTIVITY_WORDS.idle;
  return {
    repo: daemon.repo,
    session,
    state,
    lastDocument: last ? { path: last.path, at: last.at } : null,
    handoffTimes: documents.map((document) => document.at),
    idleNote: idleNote(session, now),
  };
}

/** A piece of a line and how it is shown when colours are on. */
interface Segment {
  readonly text: string;
  readonly style?: Style;
}
type Style = 'bold' | 'dim' | 'inverse' | 'green' | 'yellow' | 'red' | 'cyan' | 'magenta';
const SGR: Record<Style, string> = {
  bold: '1',
  dim: '2',
  inverse: '7',
  green: '32',
  yellow: '33',
  red: '31',
  cyan: '36',
  magenta: '35',
};

/** The columns that fit: each optional one is dropped, rather than squeezed, when the terminal is narrow. */
interface Layout {
  readonly bar: number;
  readonly spark: number;
  readonly doc: number;
}

/** The fixed columns: selection mark, agent, short id, percent, state, and the spaces between. */
const FIXED = 2 + 12 + 9 + 5 + 11;

function layout(width: number): Layout {
  const room = Math.max(0, width - FIXED);
  // The document's time and name (33 characters) first, then the bar, then the sparkline takes what is left.
  let doc = Math.min(34, Math.floor(room * 0.45));
  let bar = Math.min(20, Math.floor(room * 0.25));
  if (doc < 12) doc = 0;
  if (bar < 8) bar = 0;
  let spark = Math.min(40, room - (doc ? doc + 1 : 0) - (bar ? bar + 1 : 0) - 1);
  if (spark < 8) spark = 0;
  if (doc > 0 && spark === 0 && bar === 0) doc = room;
  return { bar, spark, doc };
}

/** The screen, one string per line; never wider than the terminal, never taller. */
export function renderTop(view: TopView): string[] {
  const rows = topRows(view.daemons, view.now);
  const clock = view.clock ?? localClock;
  const width = Math.max(1, view.width);
  const size = layout(width);
  // A snapshot (selected -1) marks no session.
  const selected = rows.length === 0 || view.selected < 0 ? -1 : Math.min(view.selected, rows.length - 1);
  const many = view.daemons.length > 1;

  const head: Segment[][] = [];
  const repoNames = view.daemons.map((daemon) => daemon.repo);
  head.push([
    { text: 'ai-zen top', style: 'bold' },
    {
      text: ` · ${many ? `${view.daemons.length} daemons` : (repoNames[0] ?? 'no daemon')} · ${rows.length} session${rows.length === 1 ? '' : 's'}`,
    },
    { text: '   q quit · h hand off · o open · ↑↓ select', style: 'dim' },
  ]);
  head.push([{ text: header(size), style: 'dim' }]);

  const body: { line: Segment[]; row: number | null }[] = [];
  let index = 0;
  for (const daemon of view.daemons) {
    if (many || daemon.error !== undefined) body.push({ line: [{ text: daemon.repo, style: 'bold' }], row: null });
    if (daemon.error !== undefined) body.push({ line: [{ text: `  ${daemon.error}`, style: 'red' }], row: null });
    const count = daemon.error === undefined ? daemon.sessions.length : 0;
    for (let n = 0; n < count; n += 1, index += 1)
      body.push({ line: sessionLine(rows[index]!, index === selected, size, clock, view.color), row: index });
  }
  if (rows.length === 0 && view.daemons.every((daemon) => daemon.error === undefined))
    body.push({ line: [{ text: '  no session yet: the daemon lists each one as its agent writes it', style: 'dim' }], row: null });

  const foot: Segment[][] = [];
  const chosen = selected >= 0 ? rows[selected] : undefined;
  if (chosen) foot.push(detailLine(chosen, clock));
  if (view.message) foot.push([{ text: view.message, style: 'cyan' }]);

  // Too many rows for the height: a window of them that keeps the selected one in sight.
  const room = Math.max(0, view.height - head.length - foot.length);
  let start = 0;
  if (body.length > room) {
    const at = Math.max(
      0,
      body.findIndex((entry) => entry.row === selected),
    );
    start = Math.min(Math.max(0, at - Math.floor(room / 2)), body.length - room);
  }
  const shown = body.slice(start, start + room).map((entry) => entry.line);
  return [...head, ...shown, ...foot].slice(0, Math.max(1, view.height)).map((line) => fit(line, width, view.color));
}

function header(size: Layout): string {
  const cells = ['  ', 'AGENT'.padEnd(12), 'SESSION'.padEnd(9)];
  if (size.bar) cells.push('CONTEXT'.padEnd(size.bar + 1));
  cells.push('USED'.padEnd(5));
  if (size.spark) cells.push('HISTORY'.padEnd(size.spark + 1));
  cells.push('STATE'.padEnd(11));
  if (size.doc) cells.push('LAST DOCUMENT');
  return cells.join('');
}

function sessionLine(row: TopRow, selected: boolean, size: Layout, clock: (iso: string) => string, color: boolean): Segment[] {
  const { session } = row;
  const percent = session.percent;
  const level: Style =
    percent === null
      ? 'dim'
      : percent >= (session.handoffAt ?? 100)
        ? 'red'
        : percent >= (session.handoffAt ?? 100) - 10
          ? 'yellow'
          : 'green';
  // Without colours the selection is the mark alone; with them the row is shown inverted too.
  const line: Segment[] = [
    { text: selected ? '› ' : '  ', style: 'bold' },
    { text: (session.agent ?? session.source).slice(0, 11).padEnd(12) },
    { text: shortId(session.id).padEnd(9), style: 'bold' },
  ];
  if (size.bar) line.push(...bar(session, size.bar, level), { text: ' ' });
  line.push({ text: (percent === null ? '?' : `${percent}%`).padStart(4).padEnd(5), style: level });
  if (size.spark) line.push(...sparkline(row, size.spark), { text: ' ' });
  line.push({
    text: row.state.padEnd(11),
    style: row.state === 'working' ? 'green' : row.state === 'handed off' ? 'magenta' : 'dim',
  });
  if (size.doc) line.push({ text: row.lastDocument ? `${clock(row.lastDocument.at)} ${path.basename(row.lastDocument.path)}` : '-' });
  return selected && color ? line.map((segment) => ({ text: segment.text, style: 'inverse' as const })) : line;
}

/** The context as a bar, with where ai-zen hands off and where the agent compacts drawn on it. */
function bar(session: SessionInfo, width: number, level: Style): Segment[] {
  const at = (percent: number | null | undefined) =>
    percent === null || percent === undefined ? -1 : Math.min(width - 1, Math.max(0, Math.round((percent * width) / 100)));
  const filled = session.percent === null ? 0 : Math.min(width, Math.round((session.percent * width) / 100));
  const handoff = session.handoffAt !== null && session.handoffAt !== undefined && session.handoffAt < 100 ? at(session.handoffAt) : -1;
  // ai-zen hands off a few points before the agent compacts: on a short bar both may fall in one cell.
  let compacts = at(session.compactsAt);
  if (compacts !== -1 && compacts === handoff) compacts = Math.min(width - 1, compacts + 1);
  const out: Segment[] = [];
  for (let cell = 0; cell < width; cell += 1) {
    if (cell === handoff) out.push({ text: HANDOFF_POINT, style: 'magenta' });
    else if (cell === compacts) out.push({ text: COMPACTION_POINT, style: 'yellow' });
    else out.push({ text: cell < filled ? '█' : '░', style: cell < filled ? level : 'dim' });
  }
  return merge(out);
}

/** The readings over time, newest on the right, with a mark where the agent compacted or a document was written. */
function sparkline(row: TopRow, width: number): Segment[] {
  const readings = (row.session.usage ?? []).slice(-width);
  const handoffs = row.handoffTimes.map((at) => Date.parse(at));
  const out: Segment[] = [];
  readings.forEach((reading, index) => {
    const time = Date.parse(reading.at);
    // A document written before the first reading shown is off the left edge.
    const previous = index === 0 ? time : Date.parse(readings[index - 1]!.at);
    // A document belongs to the first reading at or after it; one written after the last reading, to the last.
    const last = index === readings.length - 1;
    const handedOff = reading.handoff === true || handoffs.some((at) => at > previous && (at <= time || last));
    if (handedOff) out.push({ text: HANDOFF_MARK, style: 'magenta' });
    else if (reading.compacted) out.push({ text: COMPACTION_MARK, style: 'yellow' });
    else {
      const level = Math.min(SPARK.length - 1, Math.max(0, Math.floor((Math.min(100, reading.percent) * SPARK.length) / 101)));
      out.push({ text: SPARK[level]!, style: 'cyan' });
    }
  });
  out.push({ text: ' '.repeat(width - readings.length) });
  return merge(out);
}

/** Everything about the selected session that does not fit in its row. */
function detailLine(row: TopRow, clock: (iso: string) => string): Segment[] {
  const { session } = row;
  const parts = [`${shortId(session.id)} ${session.agent ?? session.source}${session.model ? ` ${session.model}` : ''}`];
  if (session.handoffAt !== null && session.handoffAt !== undefined) parts.push(`hands off at ${session.handoffAt}%`);
  if (session.compactsAt !== null && session.compactsAt !== undefined) parts.push(`compacts at ~${session.compactsAt}%`);
  if ((session.compactions ?? 0) > 0) parts.push(`${session.compactions} compaction${session.compactions === 1 ? '' : 's'}`);
  if (row.lastDocument) parts.push(`last document ${row.lastDocument.path} (${clock(row.lastDocument.at)})`);
  if (session.action) parts.push(session.action);
  if (row.idleNote) parts.push(row.idleNote);
  return [{ text: parts.join(' · '), style: 'dim' }];
}

/** Neighbouring cells of one style as one segment: fewer escapes. */
function merge(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const segment of segments) {
    const previous = out.at(-1);
    if (previous && previous.style === segment.style)
      out[out.length - 1] = { text: previous.text + segment.text, ...(segment.style ? { style: segment.style } : {}) };
    else out.push(segment);
  }
  return out;
}

/** Cut to `width` characters (never wrapped), then coloured: the escapes take no room on the screen. */
function fit(segments: readonly Segment[], width: number, color: boolean): string {
  let room = width;
  let out = '';
  for (const segment of segments) {
    if (room <= 0) break;
    const characters = [...visibleLine(segment.text)];
    const text = characters.slice(0, room).join('');
    room -= Math.min(room, characters.length);
    out += color && segment.style ? `\x1b[${SGR[segment.style]}m${text}\x1b[0m` : text;
  }
  return color ? out : out.replace(/\s+$/, '');
}

function localClock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '?' : `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}
