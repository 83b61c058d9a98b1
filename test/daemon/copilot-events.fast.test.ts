// GitHub Copilot CLI transcripts, from lines shaped as the real client (1.0.102) writes them: the
// fold (what is counted, what is not) and the hook input SessionStart lacks. Session folders and
// the offline evidence, which need a repository, are in copilot-events.test.ts.
import { describe, expect, it } from 'vitest';
import { copilotHookInput, copilotHookOutput } from '../../src/daemon/sources/copilot/copilot-agent.js';
import { copilotEventsFold } from '../../src/daemon/sources/copilot/copilot-events.js';
import { foldLines } from '../support/fold-lines.js';

const ID = '0784847d-7fc6-418b-94cc-0890fea49572';
const event = (type: string, data: object, extra: object = {}) =>
  JSON.stringify({ type, data, id: 'e', timestamp: '2026-12-04T08:00:00.000Z', parentId: null, ...extra });
const usage = (input: number, output: number, extra: object = {}) =>
  event('session.usage_record', {
    usage: {
      model: 'gpt-5.4',
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: 0,
      interactionType: 'conversation-agent',
      maxPromptTokens: 922_000,
      ...extra,
    },
  });
const FILE = `/c/session-state/${ID}/events.jsonl`;
const fold = (...lines: string[]) => {
  const { state, skips } = foldLines(copilotEventsFold, FILE, lines);
  if (skips.length > 0) throw new Error(skips.join('; '));
  return state;
};
/** One line folded into a session that has read nothing yet: the state, or why the line is skipped. */
const foldOne = (line: string) => foldLines(copilotEventsFold, FILE, [line]);

describe('Copilot CLI transcripts', () => {
  it('copilot: the context is the last main call’s input + output against the maxPromptTokens it states; subagents’ and side requests’ calls are not it; a compaction leaves what it left; a -p run is a script’s', () => {
    const start = event('session.start', {
      sessionId: ID,
      selectedModel: 'gpt-5.4',
      startTime: '2026-12-04T08:00:00.000Z',
      context: { cwd: '/r' },
    });
    const view = fold(
      start,
      event('system.message', {
        role: 'system',
        content: 'You are the GitHub Copilot CLI… You are running in non-interactive mode and have no way…',
      }),
      usage(10_000, 100),
      usage(50_000, 200),
      // A subagent's call (its lines carry agentId) and a side request: not the conversation's context.
      event(
        'session.usage_record',
        { usage: { inputTokens: 900_000, outputTokens: 1, interactionType: 'conversation-agent' } },
        { agentId: 'sub-1' },
      ),
      usage(800_000, 1, { interactionType: 'conversation-title' }),
    );
    expect(view).toMatchObject({ sessionId: ID, model: 'gpt-5.4', cwd: '/r', scripted: true, messageCount: 2, firstReadingTokens: 10_100 });
    expect(view).toMatchObject({ latestUsage: { prompt_tokens: 50_200, completion_tokens: 200 }, maxContextTokens: 922_000 });

    const compacted = fold(
      start,
      event('system.message', { role: 'system', content: 'You are an interactive tool that helps users' }),
      usage(870_000, 500),
      event('session.compaction_start', { currentTokens: 876_000, tokenLimit: 922_000, trigger: 'threshold' }),
      event('session.compaction_complete', { success: true, preCompactionTokens: 876_000, postCompactionTokens: 40_000 }),
      event('session.model_change', { previousModel: 'gpt-5.4', newModel: 'claude-sonnet-4.5' }),
    );
    expect(compacted).toMatchObject({
      scripted: false,
      compactions: 1,
      lastCompaction: { preTokens: 876_000, trigger: 'threshold' },
      model: 'claude-sonnet-4.5',
    });
    expect(compacted.latestUsage?.prompt_tokens).toBe(40_000);
    // Lines the fold does not read are passed over unparsed; a broken line it reads is skipped.
    expect(foldOne('{"type":"tool.execution_complete","data":{ broken')).toEqual(foldLines(copilotEventsFold, FILE, []));
    expect(foldOne('{"type":"session.usage_record","data":{ broken').skips).toHaveLength(1);
  });

  it('copilot: a model call counts once, whether its usage line comes before its end or after the agentStop hook; only the person’s next turn counts again', () => {
    const start = event('session.start', { sessionId: ID, selectedModel: 'gpt-5.4', startTime: '2026-12-04T08:00:00.000Z' });
    const call = (tokens: number, late: boolean) =>
      late
        ? [event('assistant.turn_start', {}), event('assistant.message', { content: 'ok' }), event('assistant.turn_end', {})]
        : [
            event('assistant.turn_start', {}),
            usage(tokens, 10),
            event('assistant.message', { content: 'ok' }),
            event('assistant.turn_end', {}),
          ];
    const hook = [event('hook.start', { hookType: 'agentStop' }), event('hook.end', { hookType: 'agentStop' })];
    const atStop = fold(start, ...call(10_000, false), ...call(20_000, true), ...hook);
    expect(atStop.messageCount).toBe(2);
    // The crossing turn's usage line, written after its agentStop hook: the same call, no new message.
    const late = fold(start, ...call(10_000, false), ...call(20_000, true), ...hook, usage(20_000, 10));
    expect(late).toMatchObject({ messageCount: 2, latestUsage: { prompt_tokens: 20_010 } });
    const next = fold(
      start,
      ...call(10_000, false),
      ...call(20_000, true),
      ...hook,
      usage(20_000, 10),
      event('user.message', { content: 'go on' }),
      ...call(30_000, false),
    );
    expect(next.messageCount).toBe(3);
  });

  it('copilot: SessionStart names no transcript — it is derived from the session id under COPILOT_HOME; its context goes where Copilot reads it', () => {
    expect(
      copilotHookInput({ hook_event_name: 'SessionStart', session_id: ID, cwd: '/r', source: 'new' }, { COPILOT_HOME: '/c' }),
    ).toMatchObject({
      transcript_path: `/c/session-state/${ID}/events.jsonl`,
    });
    expect(copilotHookInput({ session_id: '../../etc', cwd: '/r' }, { COPILOT_HOME: '/c' })).not.toHaveProperty('transcript_path');
    expect(copilotHookInput('garbage', {})).toBeNull();
    const answer = { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'read .ai-zen/handoffs/x.md' } };
    expect(copilotHookOutput('SessionStart', answer)).toMatchObject({ additionalContext: 'read .ai-zen/handoffs/x.md' });
    expect(copilotHookOutput('Stop', { decision: 'block', reason: 'r' })).toEqual({ decision: 'block', reason: 'r' });
  });
});
