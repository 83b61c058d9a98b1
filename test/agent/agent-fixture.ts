// A real agent on a real temp repo, recording through the real conversation context, talking
// to the fake model server through the real `openai` client.
import { Agent } from '../../src/agent/agent.js';
import { createModelClient } from '../../src/agent/model-client.js';
import { systemPrompt } from '../../src/agent/system-prompt.js';
import { createTools } from '../../src/agent/tools/index.js';
import type { Plugin } from '../../src/agent/types.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import type { SessionLine } from '../../src/session/format.js';
import { SessionStore } from '../../src/session/store.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

export interface AgentFixture {
  repo: TempRepo;
  fake: FakeOpenAI;
  paths: ProjectPaths;
  context: ConversationContext;
  agent: Agent;
  /** Every line of the session file, which must have nothing skipped or torn. */
  sessionLines(): Promise<SessionLine[]>;
  close(): Promise<void>;
}

export async function makeAgentFixture(
  options: { maxContextTokens?: number; timeoutMs?: number; plugins?: Plugin[]; baseURL?: string; execTimeoutMs?: number } = {},
): Promise<AgentFixture> {
  const repo = await makeTempRepo();
  const fake = await startFakeOpenAI();
  const paths = projectPaths(repo.root);
  const maxContextTokens = options.maxContextTokens ?? 128_000;
  const context = await ConversationContext.create({ paths, model: 'gpt-4o', maxContextTokens });
  const tools = createTools({ execTimeoutMs: options.execTimeoutMs ?? 10_000 });
  const agent = new Agent({
    client: createModelClient({ apiKey: 'test-key', baseURL: options.baseURL ?? fake.baseURL, timeoutMs: options.timeoutMs ?? 5_000 }),
    model: 'gpt-4o',
    maxContextTokens,
    root: repo.root,
    tools,
    recorder: context,
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  await agent.append(systemPrompt({ root: repo.root, tools }), { definition: true });
  const store = new SessionStore(paths);
  return {
    repo,
    fake,
    paths,
    context,
    agent,
    async sessionLines() {
      const content = await store.read(context.currentId);
      if (content.skipped.length > 0 || content.tornTail) throw new Error(`session file not clean: ${JSON.stringify(content.skipped)}`);
      return [content.header, ...content.lines];
    },
    async close() {
      await context.close().catch(() => {});
      await fake.close();
      await repo.cleanup();
    },
  };
}

/** The shape of a session file, one word per line: `session`, `system*`, `user`, `assistant`, `tool`, `usage`. */
export function shape(lines: readonly SessionLine[]): string[] {
  return lines.map((line) => {
    if (line.type === 'message') return `${line.message.role}${line.definition ? '*' : ''}`;
    return line.type;
  });
}
