// The fresh session `/clear` starts in the agent process whose session was just handed off is its
// successor — that one only, once, and not when the person went on in the old session.
import { expect, test } from 'vitest';
import { ProcessSuccessors } from '../../src/daemon/handoffs/process-successors.js';

const handedOff = {
  agent: 'claude-code',
  agentPid: 4242,
  sessionId: 'old',
  transcript: '/t/old.jsonl',
  document: '.ai-zen/handoffs/a.md',
  messageCount: 12,
} as const;

test('the next fresh session of the same agent process continues the handed-off one, once', () => {
  const links = new ProcessSuccessors();
  links.handedOff(handedOff);
  expect(links.documentOf('/t/old.jsonl')).toBe('.ai-zen/handoffs/a.md');
  // Another process, another agent, or the old session itself is no successor.
  expect(links.claim('claude-code', 7, '/t/new.jsonl', () => 12)).toBeNull();
  expect(links.claim('codex', 4242, '/t/new.jsonl', () => 12)).toBeNull();
  expect(links.claim('claude-code', 4242, '/t/old.jsonl', () => 12)).toBeNull();
  expect(links.claim('claude-code', 4242, '/t/new.jsonl', () => 12)).toEqual(handedOff);
  expect(links.claim('claude-code', 4242, '/t/newer.jsonl', () => 12)).toBeNull();
  expect(links.documentOf('/t/old.jsonl')).toBeNull();
});

test('a second session started in the same agent process is a /clear, whatever the agent calls it', () => {
  const links = new ProcessSuccessors();
  expect(links.startedBefore('copilot', 4242)).toBe(false);
  expect(links.startedBefore('copilot', 4243)).toBe(false);
  expect(links.startedBefore('copilot', 4242)).toBe(true);
  expect(links.startedBefore('claude-code', 4243)).toBe(false);
});

test('a person who went on in the handed-off session before /clear gets no pointer to the document', () => {
  const links = new ProcessSuccessors();
  links.handedOff(handedOff);
  expect(links.claim('claude-code', 4242, '/t/new.jsonl', () => 16)).toBeNull();
});
