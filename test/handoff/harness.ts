// A real project for handoff tests: a temp git repo, a real ConversationContext and Agent with the
// real tools, the real `openai` client against the fake server, and the migration service.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Agent } from '../../src/agent/agent.js';
import { createModelClient } from '../../src/agent/model-client.js';
import { systemPrompt } from '../../src/agent/system-prompt.js';
import { createTools } from '../../src/agent/tools/index.js';
import { EventBus, type AnyEvent } from '../../src/events.js';
import { MigrationService } from '../../src/handoff/migration-service.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import type { ExecutorName } from '../../src/session/format.js';
import { reply, startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type Reply } from '../support/fake-openai.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { memoryLogger, type MemoryLogger } from '../support/memory-logger.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

export const MODEL = 'test-model';

export interface Harness {
  readonly repo: TempRepo;
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly fake: FakeOpenAI;
  readonly context: ConversationContext;
  readonly agent: Agent;
  readonly service: MigrationService;
  readonly events: AnyEvent[];
  readonly bus: EventBus;
  /** What the migration service logged. */
  readonly log: MemoryLogger;
  sessionText(id?: string): Promise<string>;
  dispose(): Promise<void>;
}

export interface HarnessOptions {
  readonly maxContextTokens?: number;
  /** false: no model configured (X1). */
  readonly model?: boolean;
  readonly defaultExecutor?: ExecutorName;
}

export async function makeHarness(options: HarnessOptions = {}): Promise<Harness> {
  const repo = await makeTempRepo();
  const fake = await startFakeOpenAI();
  const root = repo.root;
  const paths = projectPaths(root);
  const maxContextTokens = options.maxContextTokens ?? 100_000;
  const context = await ConversationContext.create({ paths, model: MODEL, maxContextTokens });
  const client = createModelClient({ apiKey: 'test-key', baseURL: fake.baseURL });
  const tools = createTools({ execTimeoutMs: 10_000 });
  const bus = new EventBus((error) => {
    throw error;
  });
  const events: AnyEvent[] = [];
  bus.onAny((event) => events.push(event));
  const log = memoryLogger();
  let service: MigrationService | null = null;
  const agent = new Agent({ client, model: MODEL, maxContextTokens, root, tools, recorder: context });
  await agent.append(systemPrompt({ root, tools }), { definition: true });
  service = new MigrationService({
    root,
    agent,
    context,
    toolNames: agent.toolNames,
    model: options.model === false ? null : { client, model: MODEL },
    defaultExecutor: options.defaultExecutor ?? 'self',
    facts: createFactsProvider({ root }),
    events: bus,
    logger: log.logger,
    env: { AI_ZEN_HOME: repo.home },
  });
  return {
    repo,
    root,
    paths,
    fake,
    context,
    agent,
    service,
    events,
    bus,
    log,
    sessionText: (id = context.currentId) => fs.readFile(path.join(paths.sessions, `${id}.jsonl`), 'utf8'),
    async dispose() {
      await context.close().catch(() => {});
      await fake.close();
      await repo.cleanup();
    },
  };
}

/** The handoff document path named in a request (instruction, corrective instruction or summary request). */
export function docPathIn(request: RecordedRequest): string | null {
  for (const message of [...request.messages].reverse()) {
    const text = typeof message.content === 'string' ? message.content : '';
    const match = /(\.ai-zen\/handoffs\/[\w.-]+?\.md)/.exec(text);
    if (match?.[1]) return match[1];
  }
  return null;
}

export function isHandoffTurn(request: RecordedRequest): boolean {
  return request.lastUserText.startsWith('[ai-zen handoff]');
}

export function lastMessageRole(request: RecordedRequest): string {
  return request.messages.at(-1)?.role ?? '';
}

/** A document long enough to pass verification, with the nine markers, that passes F1–F4 after `converse`. */
export function goodDocument(note = 'written by the fake model'): string {
  const sections = HANDOFF_SECTIONS;
  // F3: the file `converse` writes is named, so the document passes the fidelity checks; in words,
  // not as an indexed path, so a session that wrote nothing does not send its successor to a file that exists nowhere.
  return `# Handoff\n\n${sections.map((heading) => `## ${heading}\n\n${note}: details for ${heading}.${heading.startsWith('📁') ? ' hello.txt — written in this session.' : ''}\n`).join('\n')}`;
}

/**
 * The model's side of a self handoff: the first request of a handoff turn gets `first(docPath)`,
 * a request after tool results gets a short confirmation.
 */
export function selfModel(first: (docPath: string, request: RecordedRequest) => Reply) {
  return (request: RecordedRequest): Reply | undefined => {
    if (!isHandoffTurn(request) || request.body?.tools === undefined) return undefined;
    if (lastMessageRole(request) === 'tool') return reply().text('Handoff written.');
    return first(docPathIn(request) ?? 'unknown.md', request);
  };
}

/** The summary executor's call: no tools. */
export function isSummaryCall(request: RecordedRequest): boolean {
  return request.body?.tools === undefined && isHandoffTurn(request);
}

/** A short conversation: one request, a tool call, an answer. */
export async function converse(harness: Harness, request = 'Add a greeting to hello.txt'): Promise<void> {
  harness.fake.enqueue(reply().tool('write', { path: 'hello.txt', content: 'hello\n' }), reply().text('Added hello.txt.'));
  await harness.agent.send(request);
}
