// One vocabulary of where a session stands: the daemon decides the state once, and `status`,
// `sessions` and `top` fold out the same ones and word them the same way.
import { describe, expect, it } from 'vitest';
import { renderSessions, renderStatus } from '../../src/cli/daemon/render.js';
import { topRows } from '../../src/cli/daemon/top-render.js';
import { isFolded, SESSION_STATES, STATE_WORDS } from '../../src/daemon/side-channels/session-states.js';
import { standingOf } from '../../src/daemon/side-channels/ipc-handlers.js';
import type { SessionInfo, StatusInfo } from '../../src/daemon/side-channels/status-schema.js';

function session(id: string, state: SessionInfo['state']): SessionInfo {
  return {
    id,
    file: `.claude/${id}.jsonl`,
    source: 'claude-code',
    model: 'claude-sonnet-4-5',
    promptTokens: 20_000,
    maxContextTokens: 200_000,
    percent: 10,
    owner: 'none',
    closed: false,
    successorId: null,
    overflowed: false,
    action: null,
    state,
    agent: 'claude-code',
  };
}

const open = session('aaaaaaaa-1111-4222-8333-444444444444', 'open');
const exited = session('bbbbbbbb-1111-4222-8333-444444444444', 'exited');
const handedOff = session('cccccccc-1111-4222-8333-444444444444', 'handed-off');

describe('session states', () => {
  it('handed off wins over exited, exited over the window; exited and handed off are the folded ones', () => {
    expect(standingOf({ handedOff: true, exited: true, overflowed: true, percent: 120 })).toBe('handed-off');
    expect(standingOf({ handedOff: false, exited: true, overflowed: true, percent: 120 })).toBe('exited');
    expect(standingOf({ handedOff: false, exited: false, overflowed: true, percent: 90 })).toBe('over-threshold');
    expect(standingOf({ handedOff: false, exited: false, overflowed: true, percent: 100 })).toBe('overflowed');
    expect(standingOf({ handedOff: false, exited: false, overflowed: false, percent: 10 })).toBe('open');
    expect(SESSION_STATES.filter(isFolded)).toEqual(['exited', 'handed-off']);
  });

  it('sessions folds out the exited and handed-off ones and says how many; --all lists them with their word', () => {
    const folded = renderSessions([open, exited, handedOff]);
    expect(folded).toContain('aaaaaaaa');
    expect(folded).not.toContain('bbbbbbbb');
    expect(folded).not.toContain('cccccccc');
    expect(folded).toContain('2 more exited or handed off: sessions --all shows them');
    const all = renderSessions([open, exited, handedOff], true);
    expect(all).toMatch(/bbbbbbbb .*· exited/);
    expect(all).toMatch(/cccccccc .*· handed off → \?/);
    expect(renderSessions([exited])).toBe('no open sessions\n1 more exited or handed off: sessions --all shows them\n');
  });

  it('status counts the open, handed-off and exited sessions apart, and top words them as status does', () => {
    const status = {
      version: '0',
      pid: 1,
      startedAt: new Date().toISOString(),
      repo: '/r',
      socket: '/s',
      log: '/l',
      model: null,
      executor: 'offline',
      autoCommit: false,
      notifications: false,
      ready: true,
      migration: null,
      sessions: [open],
      closedSessions: 2,
      exitedSessions: 18,
      git: { known: false, why: 'x' },
      ports: { known: false, why: 'x' },
      handoffs: [],
      handoffCount: 0,
    } as unknown as StatusInfo;
    expect(renderStatus(status)).toContain('sessions (1 open, 2 handed off, 18 exited: status --all shows them)');
    const rows = topRows([{ repo: '/r', sessions: [open, exited, handedOff], handoffs: [] }], Date.now());
    expect(rows.map((row) => row.state)).toEqual(['idle', STATE_WORDS.exited, STATE_WORDS['handed-off']]);
  });
});
