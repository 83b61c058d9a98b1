// A notification names another agent as people know it — "Gemini CLI session …", "Qwen Code
// handoff written" — for every agent of the list, never by its config key. In-process: the
// notification is a pure function of the event.
import { describe, expect, it } from 'vitest';
import { AGENT_LABELS, agentsInWords, WATCHED_AGENTS } from '../../src/config/agent-names.js';
import { notificationFor } from '../../src/daemon/side-channels/daemon-notifications.js';
import { AGENT_MODULES } from '../../src/daemon/sources/index.js';

const ID = '1a2b3c4d-0000-4000-8000-000000000000';

describe.each(WATCHED_AGENTS.map((name) => ({ name, label: AGENT_LABELS[name] })))('notifications of $label', ({ name, label }) => {
  it('its warning and its handoff name it by its label', () => {
    const warned = notificationFor({
      name: 'session.warned',
      payload: { sessionId: ID, agent: name, percent: 61, warnAt: 60, promptTokens: 122_000, maxContextTokens: 200_000, handoffAt: 70 },
    });
    expect(warned?.title).toBe(`${label} session 1a2b3c4d at 61%`);
    const written = notificationFor({
      name: 'handoff.written',
      payload: {
        sessionId: ID,
        mode: 'handoff',
        path: '.ai-zen/handoffs/x.md',
        absolutePath: '/repo/.ai-zen/handoffs/x.md',
        executor: 'offline',
        cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
        agent: name,
        successorCommand: 'client "Read …"',
        percent: 71,
      },
    });
    expect(written?.title).toBe(`ai-zen: ${label} handoff written`);
    expect(written?.body.startsWith(`${label} session 1a2b3c4d at 71% — handoff written: .ai-zen/handoffs/x.md`)).toBe(true);
  });

  it('its module says the same label, and help texts name it', () => {
    expect(AGENT_MODULES.find((agent) => agent.name === name)?.label).toBe(label);
    expect(agentsInWords(true)).toContain(label);
  });
});

describe('the notification of an idle handoff', () => {
  it('says the session was handed off while idle, names the document, and that /clear continues fresh', () => {
    const written = notificationFor(
      {
        name: 'handoff.written',
        payload: {
          sessionId: ID,
          mode: 'handoff',
          path: '.ai-zen/handoffs/x.md',
          absolutePath: '/repo/.ai-zen/handoffs/x.md',
          executor: 'offline',
          cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
          agent: 'claude-code',
          successorCommand: 'claude "Read …"',
          percent: 40,
          trigger: 'idle',
        },
      },
      { commit: { state: 'committed', commit: 'abcdef1234' } },
    );
    expect(written).toEqual({
      title: 'ai-zen: Claude Code handed off while idle',
      body: 'Claude Code session 1a2b3c4d handed off while idle → .ai-zen/handoffs/x.md; /clear continues fresh from it (or: claude "Read …"); resuming the session re-writes its whole context — committed abcdef1',
    });
  });
});
