// A fake Gemini API server (`POST /v1beta/models/<model>:generateContent` and
// `:streamGenerateContent?alt=sse`) on 127.0.0.1, for tests that drive the real Gemini CLI offline:
// `GOOGLE_GEMINI_BASE_URL` points at it. Replies are scripted with a small builder (text, function
// calls, `usageMetadata`) and every request body is recorded. The shapes follow the public
// generateContent reference and what the real client (0.61) was seen to send and accept.
//
// The client asks more than the turns of the session: with no `--model` ("auto") it first asks a
// small model for the request's complexity (a JSON answer, `responseJsonSchema`), and it may ask
// other JSON questions (who speaks next). Those are answered here, from the schema, without taking
// a scripted reply; only the session's own turns (requests that offer tools) take one.
//
//   const fake = await startFakeGemini();
//   fake.enqueue(geminiReply().call('run_shell_command', { command: 'ls' }).usage({ prompt: 9000 }),
//                geminiReply().text('done').usage({ prompt: 9100 }));
import type http from 'node:http';
import { listenLoopback, parseBody, ReplyScript } from './fake-http-server.js';

/** What `usageMetadata` reports; the client records it as the message's `tokens`. */
export interface GeminiUsage {
  /** promptTokenCount: the whole context sent, cached tokens included (what the client shows as "% used"). */
  readonly prompt: number;
  readonly cached?: number;
  readonly candidates?: number;
  readonly thoughts?: number;
}

export interface RecordedGeminiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The model named in the path (`gemini-3.8-flash`). */
  readonly model: string;
  readonly stream: boolean;
  readonly body: any;
  readonly contents: any[];
  /** A JSON question of the client's own (routing, next speaker), answered without a scripted reply. */
  readonly utility: boolean;
  /** Text of the last user turn (its text parts; empty when it carries only function responses). */
  readonly lastUserText: string;
  /** The function responses the last user turn carries (`{name, response}`). */
  readonly functionResponses: any[];
}

type Part = { readonly text: string } | { readonly functionCall: { readonly name: string; readonly args: unknown } };

/** One model reply: text, function calls, usage. Chainable. */
export class GeminiReplyBuilder {
  readonly kind = 'reply' as const;
  readonly parts: Part[] = [];
  usageValue: GeminiUsage | null = null;
  gate: Promise<unknown> | null = null;

  text(text: string): this {
    this.parts.push({ text });
    return this;
  }

  /** A function call of a tool the request offered (`write_file`, `run_shell_command`, `replace`, …). */
  call(name: string, args: Record<string, unknown>): this {
    this.parts.push({ functionCall: { name, args } });
    return this;
  }

  usage(usage: GeminiUsage): this {
    this.usageValue = usage;
    return this;
  }

  /** Answer only once `gate` settles: a turn that lasts until the test has seen what it waits for. */
  until(gate: Promise<unknown>): this {
    this.gate = gate;
    return this;
  }
}

export interface GeminiHttpError {
  readonly kind: 'http-error';
  readonly status: number;
  readonly message: string;
}

export type GeminiReply = GeminiReplyBuilder | GeminiHttpError;

export function geminiReply(): GeminiReplyBuilder {
  return new GeminiReplyBuilder();
}

export function geminiHttpError(status: number, message = `error ${status}`): GeminiHttpError {
  return { kind: 'http-error', status, message };
}

export type GeminiHandler = (request: RecordedGeminiRequest) => GeminiReply | undefined;

export interface FakeGemini {
  /** e.g. `http://127.0.0.1:43123` — GOOGLE_GEMINI_BASE_URL. */
  readonly baseURL: string;
  readonly requests: RecordedGeminiRequest[];
  /** The session's own turns (not the client's JSON questions). */
  turns(): RecordedGeminiRequest[];
  enqueue(...replies: GeminiReply[]): void;
  /** A handler may answer a turn; `undefined` passes to the next one, then to the queue. Returns a remover. */
  handle(fn: GeminiHandler): () => void;
  pending(): number;
  close(): Promise<void>;
}

const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:?]+):(generateContent|streamGenerateContent|countTokens)(?:\?|$)/;

export async function startFakeGemini(options: { readonly complexityScore?: number } = {}): Promise<FakeGemini> {
  const script = new ReplyScript<RecordedGeminiRequest, GeminiReply>('fake-gemini');
  const requests: RecordedGeminiRequest[] = [];

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const body = parseBody(raw);
    const route = ROUTE.exec(req.url ?? '');
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
    const schema = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
    const lastUser = [...contents].reverse().find((content) => content?.role === 'user');
    const parts: any[] = Array.isArray(lastUser?.parts) ? lastUser.parts : [];
    const recorded: RecordedGeminiRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      model: route?.[1] ?? '',
      stream: route?.[2] === 'streamGenerateContent',
      body,
      contents,
      utility: schema !== undefined && schema !== null,
      lastUserText: parts
        .map((part) => (typeof part?.text === 'string' ? part.text : ''))
        .join('')
        .trim(),
      functionResponses: parts.filter((part) => part?.functionResponse).map((part) => part.functionResponse),
    };
    requests.push(recorded);
    if (recorded.method !== 'POST' || !route) {
      sendError(res, geminiHttpError(404, `fake-gemini: no route ${recorded.method} ${recorded.path}`));
      return;
    }
    if (route[2] === 'countTokens') {
      sendJson(res, { totalTokens: Math.ceil(raw.length / 4) });
      return;
    }
    if (recorded.utility) {
      const answer = answerFromSchema(schema, options.complexityScore ?? 10);
      const reply = geminiReply().text(JSON.stringify(answer)).usage({ prompt: 50, candidates: 10 });
      send(res, reply, recorded);
      return;
    }
    const chosen = await script.next(recorded);
    if (!chosen) {
      sendError(res, geminiHttpError(500, 'fake-gemini: no reply queued for this request'));
      return;
    }
    if (chosen.kind === 'http-error') {
      sendError(res, chosen);
      return;
    }
    if (chosen.gate) void chosen.gate.finally(() => send(res, chosen, recorded));
    else send(res, chosen, recorded);
  }

  const server = await listenLoopback('fake-gemini', serve);
  const { enqueue, handle, pending } = script;
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    requests,
    turns: () => requests.filter((request) => !request.utility && !request.path.includes(':countTokens')),
    enqueue,
    handle,
    pending,
    close: server.close,
  };
}

/** One GenerateContentResponse; streamed as one SSE event (the client reads `data:` lines). */
function responseOf(built: GeminiReplyBuilder, model: string): Record<string, unknown> {
  const usage = built.usageValue ?? { prompt: 1000 };
  const candidates = usage.candidates ?? 10;
  return {
    candidates: [
      { content: { role: 'model', parts: built.parts.length > 0 ? built.parts : [{ text: '' }] }, finishReason: 'STOP', index: 0 },
    ],
    usageMetadata: {
      promptTokenCount: usage.prompt,
      candidatesTokenCount: candidates,
      ...(usage.cached !== undefined ? { cachedContentTokenCount: usage.cached } : {}),
      ...(usage.thoughts !== undefined ? { thoughtsTokenCount: usage.thoughts } : {}),
      totalTokenCount: usage.prompt + candidates + (usage.thoughts ?? 0),
    },
    modelVersion: model,
    responseId: `fake-${Math.random().toString(36).slice(2, 10)}`,
  };
}

function send(res: http.ServerResponse, built: GeminiReplyBuilder, request: RecordedGeminiRequest): void {
  const response = responseOf(built, request.model);
  if (!request.stream) {
    sendJson(res, response);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(response)}\n\n`);
}

function sendJson(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sendError(res: http.ServerResponse, error: GeminiHttpError): void {
  res.writeHead(error.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: error.status, message: error.message, status: 'INTERNAL' } }));
}

/**
 * An answer to one of the client's JSON questions, from its schema: the routing question gets
 * `complexityScore` (low: the flash model), "who speaks next" gets the user (the turn ends), any
 * other field a plain value of its type.
 */
function answerFromSchema(schema: any, complexityScore: number): Record<string, unknown> {
  const properties: Record<string, any> = schema?.properties ?? {};
  const answer: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const type = String(property?.type ?? '').toLowerCase();
    if (name === 'complexity_score') answer[name] = complexityScore;
    else if (name === 'next_speaker') answer[name] = 'user';
    else if (Array.isArray(property?.enum) && property.enum.length > 0) answer[name] = property.enum[0];
    else if (type === 'integer' || type === 'number') answer[name] = 1;
    else if (type === 'boolean') answer[name] = false;
    else if (type === 'array') answer[name] = [];
    else answer[name] = 'fake';
  }
  return answer;
}
