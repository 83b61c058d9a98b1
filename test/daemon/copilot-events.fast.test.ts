// GitHub Copilot CLI transcripts, from lines shaped as the real client (1.0.102) writes them: the
// fold (what is counted, what is not) and the hook input SessionStart lacks. Session folders and
// the offline evidence, which need a repository, are in copilot-events.test.ts.
import { describe, expect, it } from 'vitest';
import { copilotHookInput, copilotHookOutput } from '../../src/daemon/sources/copilot/copilot-agent.js';
import { emptyCopilotView, foldCopilotLine, type CopilotView } from '../../src/daemon/sources/copilot/copilot-events.js';

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
const fold = (...lines: string[]): CopilotView =>
  lines.reduce((view, line) => {
    const next = foldCopilotLine(view, line);
    if ('skip' in next) throw new Error(next.skip);
    return next.view;
  }, emptyCopilotView());

describe('issue 24 Copilot CLI transcripts', () => {
  it('issue 24 copilot: the context is the last main call’s input + output against the maxPromptTokens it states; subagents’ and side requests’ calls are not it; a compaction leaves what it left; a -p run is a script’s', () => {
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
    expect(view).toMatchObject({ sessionId: ID, model: 'gpt-5.4', cwd: '/r', scripted: true, readingCount: 2, firstReadingTokens: 10_100 });
    expect(view.reading).toEqual({ contextTokens: 50_200, outputTokens: 200, window: 922_000 });

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
      lastCompactionPreTokens: 876_000,
      lastCompactionTrigger: 'threshold',
      model: 'claude-sonnet-4.5',
    });
    expect(compacted.reading?.contextTokens).toBe(40_000);
    // Lines the fold does not read are passed over unparsed; a broken line it reads is skipped.
    expect(foldCopilotLine(emptyCopilotView(), '{"type":"tool.execution_complete","data":{ broken')).toEqual({ view: emptyCopilotView() });
    expect(foldCopilotLine(emptyCopilotView(), '{"type":"session.usage_record","data":{ broken')).toHaveProperty('skip');
  });

  it('issue 24 copilot: SessionStart names no transcript — it is derived from the session id under COPILOT_HOME; its context goes where Copilot reads it', () => {
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
