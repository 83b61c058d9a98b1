// What `ai-zen-daemon top` draws, as a pure function of what the daemons answered.
// The live view in a real terminal is tested in daemon-top.test.ts.
import { describe, expect, it } from 'vitest';
import type { HandoffInfo, SessionInfo } from '../../src/daemon/side-channels/status-schema.js';
import {
  COMPACTION_MARK,
  COMPACTION_POINT,
  HANDOFF_MARK,
  HANDOFF_POINT,
  renderTop,
  topRows,
  type TopDaemon,
  type TopView,
} from '../../src/cli/daemon/top-render.js';

const NOW = Date.parse('2026-12-04T04:00:00.000Z');
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

function session(id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id,
    file: `.claude/${id}.jsonl`,
    source: 'claude-code',
    model: 'claude-sonnet-4-5',
    promptTokens: 124_000,
    maxContextTokens: 200_000,
    percent: 62,
    owner: 'none',
    closed: false,
    successorId: null,
    overflowed: false,
    action: null,
    state: 'open',
    agent: 'claude-code',
    handoffAt: 70,
    compactsAt: 73,
    compactions: 0,
    usage: [
      { at: at(30), percent: 40 },
      { at: at(20), percent: 51 },
      { at: at(10), percent: 62 },
    ],
    ...overrides,
  };
}

function handoff(sessionId: string, when: string, file = `.ai-zen/handoffs/20261204-035959-${sessionId.slice(0, 8)}.md`): HandoffInfo {
  return {
    path: file,
    sessionId,
    executor: 'offline',
    mode: 'handoff',
    at: when,
    state: 'committed',
    commit: 'abc',
    reason: null,
    attempts: 1,
  };
}

const daemon = (sessions: SessionInfo[], handoffs: HandoffInfo[] = []): TopDaemon => ({ repo: '/work/repo', sessions, handoffs });
const view = (daemons: TopDaemon[], overrides: Partial<TopView> = {}): TopView => ({
  daemons,
  selected: 0,
  width: 120,
  height: 30,
  color: false,
  now: NOW,
  clock: (iso) => iso.slice(11, 16),
  ...overrides,
});
const rowOf = (lines: string[], id: string) => lines.find((line) => line.includes(id.slice(0, 8)) && /%/.test(line))!;

describe('top: the screen as a pure function', () => {
  it('a session row shows agent, short id, context % as a bar with where ai-zen hands off and where the agent compacts, state and last document', () => {
    const id = 'aaaaaaaa-1111-4222-8333-444444444444';
    const lines = renderTop(view([daemon([session(id)], [handoff(id, at(100))])]));
    const row = rowOf(lines, id);
    expect(row).toMatch(/^› claude-code\s+aaaaaaaa\s/);
    expect(row).toContain('62%');
    const bar = /[█░┃╎]+/.exec(row)![0];
    expect(bar.indexOf(HANDOFF_POINT)).toBeGreaterThan(bar.lastIndexOf('█'));
    expect(bar.indexOf(COMPACTION_POINT)).toBeGreaterThan(bar.indexOf(HANDOFF_POINT));
    expect(row).toContain('working');
    expect(row).toContain('03:58 20261204-035959-aaaaaaaa.md');
    // The selected session's details: the thresholds in words.
    expect(lines.join('\n')).toMatch(/hands off at 70% · compacts at ~73%/);
  });

  it('the sparkline rises with the readings and marks a compaction and a handoff', () => {
    const id = 'bbbbbbbb-1111-4222-8333-444444444444';
    const usage = [
      { at: at(50), percent: 10 },
      { at: at(40), percent: 60 },
      { at: at(30), percent: 20, compacted: true },
      { at: at(20), percent: 30 },
      { at: at(10), percent: 90 },
    ];
    const handedOffAt = at(15);
    const row = rowOf(renderTop(view([daemon([session(id, { usage })], [handoff(id, handedOffAt)])])), id);
    const spark = /[▁▂▃▄▅▆▇█↓◆]{5}/.exec(row.replace(/[█░┃╎]+\s+\d+%/, ''))![0];
    expect([...spark]).toEqual(['▁', '▅', COMPACTION_MARK, '▃', HANDOFF_MARK]);
  });

  it('state: working (a reading in the last minute), idle, handed off (a document since its last reading, or a successor)', () => {
    const working = session('cccccccc-1111-4222-8333-444444444444');
    const idle = session('dddddddd-1111-4222-8333-444444444444', { usage: [{ at: at(600), percent: 30 }] });
    const documented = session('eeeeeeee-1111-4222-8333-444444444444');
    const succeeded = session('ffffffff-1111-4222-8333-444444444444', { state: 'handed-off', usage: [] });
    const rows = topRows([daemon([working, idle, documented, succeeded], [handoff(documented.id, at(5))])], NOW);
    expect(Object.fromEntries(rows.map((row) => [row.session.id.slice(0, 8), row.state]))).toEqual({
      cccccccc: 'working',
      dddddddd: 'idle',
      eeeeeeee: 'handed off',
      ffffffff: 'handed off',
    });
    // Open ones first: the handed-off sink to the bottom.
    expect(rows.map((row) => row.state).slice(-2)).toEqual(['handed off', 'handed off']);
  });

  it('narrow terminals degrade: columns are dropped, never wrapped, the id and percent stay', () => {
    const id = 'aaaaaaaa-1111-4222-8333-444444444444';
    for (const width of [30, 50, 70, 90]) {
      const lines = renderTop(view([daemon([session(id)], [handoff(id, at(100))])], { width }));
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(width);
      if (width >= 50) expect(rowOf(lines, id)).toContain('62%');
    }
    const narrow = rowOf(renderTop(view([daemon([session(id)])], { width: 50 })), id);
    expect(narrow).not.toContain(HANDOFF_POINT);
  });

  it('colours only when asked (a terminal without NO_COLOR), and the escapes take no room', () => {
    const id = 'aaaaaaaa-1111-4222-8333-444444444444';
    const plain = renderTop(view([daemon([session(id)])]));
    expect(plain.join('\n')).not.toContain('\x1b');
    const coloured = renderTop(view([daemon([session(id)])], { color: true, width: 60 }));
    expect(coloured.join('\n')).toContain('\x1b[');
    for (const line of coloured) expect([...line.replace(/\x1b\[[0-9;]*m/g, '')].length).toBeLessThanOrEqual(60);
  });

  it('more sessions than rows: the screen keeps its height and the selected one in sight', () => {
    const sessions = Array.from({ length: 40 }, (_, n) => session(`${String(n).padStart(8, '0')}-1111-4222-8333-444444444444`));
    const lines = renderTop(view([daemon(sessions)], { height: 12, selected: 35 }));
    expect(lines).toHaveLength(12);
    expect(lines.some((line) => line.startsWith('› 00000035') || /^› \S+\s+00000035/.test(line))).toBe(true);
  });

  it('--all: each daemon under its repo, one that does not answer says why', () => {
    const lines = renderTop(
      view([
        { repo: '/work/a', sessions: [session('aaaaaaaa-1111-4222-8333-444444444444')], handoffs: [] },
        { repo: '/work/b', sessions: [], handoffs: [], error: 'the daemon for /work/b closed the connection before answering' },
      ]),
    );
    const text = lines.join('\n');
    expect(text).toContain('2 daemons');
    expect(text).toMatch(/\/work\/a\n› claude-code/);
    expect(text).toMatch(/\/work\/b\n {2}the daemon for \/work\/b closed/);
  });
});
