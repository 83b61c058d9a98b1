// One watched agent's settings as the defaults give them, for tests that build a source or a fold by hand.
import type { AgentConfig } from '../../src/config/agents-config.js';

export const DEFAULT_AGENT_CONFIG: AgentConfig = {
  enabled: true,
  handoffAt: 70,
  warnAt: 60,
  handoffAtTokens: null,
  contextWindow: null,
  models: {},
  graceSeconds: 120,
  selfDeadlineSeconds: 180,
  command: null,
  idleHandoff: null,
};
