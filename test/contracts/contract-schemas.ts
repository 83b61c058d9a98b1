// The public contracts as JSON Schema, generated from the zod schemas the code parses with
// (zod 4's z.toJSONSchema). schemas/ holds the committed output; `npm run schemas` rewrites it and
// test/contracts/json-schemas.test.ts fails when the two drift apart.
import { z } from 'zod';
import {
  HandoffReply,
  HandoffsReply,
  SessionsReply,
  StatusInfo,
  StopReply,
  FactsInfo,
  TranscriptReply,
  StatuslineReply,
} from '../../src/daemon/side-channels/status-schema.js';
import { ConfigReport } from '../../src/cli/ai-zen/config.js';
import { HOOK_FOR_EVENT, type HookName } from '../../src/daemon/side-channels/hooks-runner.js';
import { EventSchemas, type EventName } from '../../src/events.js';
import { PROTOCOL_VERSION, Reply, RequestId, RequestParams, RequestType } from '../../src/ipc/protocol.js';
import { SessionLine } from '../../src/session/format.js';

/** One request per type, each with the params that type accepts (the server checks the envelope, then the params). */
export const IpcRequest = z.union(
  RequestType.options.map((type) =>
    z.object({ v: z.literal(PROTOCOL_VERSION), id: RequestId, type: z.literal(type), params: RequestParams[type] }),
  ),
);

/** An event pushed to a subscriber: the envelope with each catalogue event's own payload. */
export const IpcEvent = z.object({
  v: z.literal(PROTOCOL_VERSION),
  event: z.union(
    (Object.keys(EventSchemas) as EventName[]).map((name) => z.object({ name: z.literal(name), payload: EventSchemas[name] })),
  ),
});

/** What a hook reads on stdin: for each hook, the event that runs it and that event's payload. */
export const HookInput = z.union(
  (Object.entries(HOOK_FOR_EVENT) as [EventName, HookName][]).map(([event, hook]) =>
    z.object({ v: z.literal(1), hook: z.literal(hook), event: z.literal(event), root: z.string(), payload: EventSchemas[event] }),
  ),
);

/** The `result` of each IPC request that answers with data (also what `ai-zen-daemon <command> --json` prints). */
export const IpcResults = z.object({
  status: StatusInfo,
  sessions: SessionsReply,
  handoffs: HandoffsReply,
  facts: FactsInfo,
  handoff: HandoffReply,
  migrate: HandoffReply,
  stop: StopReply,
  transcript: TranscriptReply,
  statusline: StatuslineReply,
});

interface Contract {
  readonly file: string;
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodType;
}

export const CONTRACTS: readonly Contract[] = [
  {
    file: 'session-line.v1.schema.json',
    title: 'ai-zen session file v1: one line',
    description:
      'Each line of a session file (.ai-zen/sessions/<id>.jsonl) is one JSON object matching this schema. Source: src/session/format.ts.',
    schema: SessionLine,
  },
  {
    file: 'ipc-request.v1.schema.json',
    title: 'ai-zen daemon IPC v1: a request',
    description: 'A request sent to the daemon socket, followed by a form feed. Source: src/ipc/protocol.ts.',
    schema: IpcRequest,
  },
  {
    file: 'ipc-reply.v1.schema.json',
    title: 'ai-zen daemon IPC v1: a reply',
    description:
      'The reply to a request (its id repeated). Source: src/ipc/protocol.ts; the result of each type is in ipc-results.v1.schema.json.',
    schema: Reply,
  },
  {
    file: 'ipc-results.v1.schema.json',
    title: 'ai-zen daemon IPC v1: the result of each request type',
    description: 'Keyed by request type: the `result` of a successful reply. Source: src/daemon/side-channels/status-schema.ts.',
    schema: IpcResults,
  },
  {
    file: 'ipc-event.v1.schema.json',
    title: 'ai-zen daemon IPC v1: an event pushed to a subscriber',
    description: 'After a `subscribe` request, each catalogue event as it happens. Source: src/events.ts.',
    schema: IpcEvent,
  },
  {
    file: 'hook-input.v1.schema.json',
    title: 'ai-zen hook input v1',
    description:
      'The one JSON object (and a newline) a hook in .ai-zen/hooks/ reads on stdin. Source: src/daemon/side-channels/hooks-runner.ts, src/events.ts.',
    schema: HookInput,
  },
  {
    file: 'config-report.v1.schema.json',
    title: 'ai-zen config --json v1',
    description:
      'What `ai-zen config --json` prints: the effective settings of a repo, where each came from, and what an untrusted repo tried to set. Source: src/cli/ai-zen/config.ts.',
    schema: ConfigReport,
  },
];

/** The text of each schema file, as committed: pretty JSON and a final newline. */
export function renderContracts(): Map<string, string> {
  const files = new Map<string, string>();
  for (const contract of CONTRACTS) {
    const { $schema, ...rest } = z.toJSONSchema(contract.schema) as Record<string, unknown>;
    const document = { $schema, title: contract.title, description: contract.description, ...rest };
    files.set(contract.file, `${JSON.stringify(document, null, 2)}\n`);
  }
  return files;
}
