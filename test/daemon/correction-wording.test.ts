// The one correction the Stop hook sends names the agent's own editing tools: Gemini is not told to
// use a Write or Edit tool it does not have. Built from each agent's real source, no daemon.
import { describe, expect, test } from 'vitest';
import { resolveAgentsConfig } from '../../src/config/agents-config.js';
import { correctionReason } from '../../src/daemon/sources/agent-hook-answer.js';
import { AGENT_MODULES } from '../../src/daemon/sources/index.js';

const config = resolveAgentsConfig(undefined, undefined);
const correction = { path: '.ai-zen/handoffs/20261204-120000-1a2b3c4d.md', problems: ['the ⚠️ section is missing'] };

const expected: Record<string, string> = {
  'claude-code': 'Write or Edit',
  codex: 'apply_patch',
  gemini: 'write_file or replace',
  'qwen-code': 'write_file or edit',
  pi: 'write or edit',
  copilot: 'edit',
  opencode: 'write or edit',
  kilo: 'write or edit',
  cline: 'apply_patch or editor',
};

describe('the correction names the agent’s own tools', () => {
  test.each(AGENT_MODULES.map((agent) => [agent.name, agent] as const))('%s', (name, agent) => {
    const source = agent.createSource({ root: '/repo', env: {}, config: config[agent.name] });
    const text = correctionReason(correction, source);
    expect(text).toContain(`Correct exactly these in that file with your ${expected[name]} tool`);
    expect(text).toContain('- the ⚠️ section is missing');
    if (name !== 'claude-code') expect(text).not.toContain('Write or Edit');
  });
});
