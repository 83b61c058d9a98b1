// One tool call, from the model's raw JSON to a result: unknown tools, broken JSON and arguments
// that fail the schema go back to the model as results it can fix; so does a plugin's refusal
// (R12) and a tool that throws. Nothing here ends the turn.
import type { ToolCall } from '../session/format.js';
import type { Refusal } from './plugins/run-plugins.js';
import type { Tool, ToolCallRequest, ToolContext, ToolResult } from './types.js';

export interface RunToolCallOptions {
  readonly call: ToolCall;
  readonly tools: readonly Tool[];
  readonly context: ToolContext;
  /** Sees the checked call just before it runs; a refusal becomes the result. */
  readonly beforeRun?: (request: ToolCallRequest) => Promise<Refusal | undefined>;
}

function failed(name: string, message: string): ToolResult {
  return { forModel: `error: ${message}`, forUser: `${name}: ${message}`, isError: true };
}

export async function runToolCall({ call, tools, context, beforeRun }: RunToolCallOptions): Promise<ToolResult> {
  const name = call.function.name;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) return failed(name, `unknown tool "${name}"; the tools are: ${tools.map((known) => known.name).join(', ')}`);

  let raw: unknown;
  try {
    raw = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch (error) {
    return failed(name, `the arguments are not valid JSON (${(error as Error).message}); send a JSON object`);
  }
  const parsed = tool.schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`)
      .join('; ');
    return failed(name, `invalid arguments for ${name}: ${problems}`);
  }

  const request: ToolCallRequest = { id: call.id, name, args: parsed.data };
  const refusal = await beforeRun?.(request);
  if (refusal) return { forModel: refusal.reason, forUser: `${name} refused: ${refusal.reason}`, isError: true };
  try {
    return await tool.run(parsed.data, context);
  } catch (error) {
    return failed(name, `${name} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}
