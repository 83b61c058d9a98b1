// pi (the pi coding agent, `@mariozechner/pi-coding-agent`) as an agent ai-zen watches
// (agent-module.ts, issue 24): its sessions, a successor started as `pi "<prompt>"`, a session
// reopened whole with `pi --session <id>`, and its hooks as a pi extension (pi-extension.ts).
import type { AgentModule } from '../agent-module.js';
import { piHooks } from './pi-extension.js';
import { createPiSource } from './pi-source.js';

export const piAgent: AgentModule = {
  name: 'pi',
  label: 'pi',
  word: 'pi',
  createSource: createPiSource,
  resumeCommand: (sessionId) => `pi --session ${sessionId}`,
  startArgs: (prompt, clientArgs) => [...clientArgs, prompt],
  hooks: piHooks,
};
