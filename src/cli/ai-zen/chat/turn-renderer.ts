// Renders a turn as it happens: the reply's text streamed as it arrives, and each tool call as one
// compact line (name, target, result size or error) — a pending line while the tool runs, replaced
// by the outcome when it is done.
import readline from 'node:readline';
import type { ToolCallRequest, ToolResult, TurnObserver } from '../../../agent/types.js';
import type { Style } from './style.js';

export interface TurnOutput {
  write(text: string): unknown;
  readonly columns?: number;
  readonly isTTY?: boolean;
}

/** What a call is about, for its pending line: a path, a move, a command. */
export function toolTarget(call: ToolCallRequest): string {
  const args = (typeof call.args === 'object' && call.args !== null ? call.args : {}) as Record<string, unknown>;
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  const from = text(args.from);
  const to = text(args.to);
  if (from && to) return `${from} → ${to}`;
  return text(args.path) ?? text(args.command)?.replace(/\s+/g, ' ') ?? '';
}

function fitLine(line: string, columns: number | undefined): string {
  const width = Math.max(20, (columns ?? 80) - 1);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

export class TurnRenderer implements TurnObserver {
  /** Where the cursor is: after streamed text (`text`), on a pending tool line, or at a line start. */
  private at: 'line-start' | 'text' | 'pending' = 'line-start';
  private wroteText = false;

  constructor(
    private readonly output: TurnOutput,
    private readonly style: Style,
  ) {}

  onTextDelta(delta: string): void {
    if (delta === '') return;
    if (this.at === 'pending') this.endPending();
    this.output.write(delta);
    this.wroteText = true;
    this.at = delta.endsWith('\n') ? 'line-start' : 'text';
  }

  onToolCall(call: ToolCallRequest): void {
    this.toLineStart();
    const target = toolTarget(call);
    this.output.write(this.style.dim(fitLine(`  ⋯ ${call.name}${target ? ` ${target}` : ''}`, this.output.columns)));
    this.at = 'pending';
  }

  onToolResult(call: ToolCallRequest, result: ToolResult): void {
    if (this.at === 'pending') this.clearPending();
    else this.toLineStart();
    const summary =
      result.forUser.startsWith(`${call.name} `) || result.forUser === call.name ? result.forUser : `${call.name}: ${result.forUser}`;
    const line = fitLine(`  ${result.isError ? '✗' : '✓'} ${summary}`, this.output.columns);
    this.output.write(`${result.isError ? this.style.red(line) : this.style.dim(line)}\n`);
    this.at = 'line-start';
  }

  /** Ends the turn's output on a fresh line; says so when it was cut short. */
  finish(note?: string): void {
    this.toLineStart();
    if (note) this.output.write(`${note}\n`);
  }

  get printedText(): boolean {
    return this.wroteText;
  }

  private toLineStart(): void {
    if (this.at === 'pending') this.endPending();
    else if (this.at === 'text') this.output.write('\n');
    this.at = 'line-start';
  }

  private endPending(): void {
    this.output.write('\n');
    this.at = 'line-start';
  }

  /** Wipes the pending line so the outcome takes its place. */
  private clearPending(): void {
    if (this.output.isTTY === true) {
      readline.cursorTo(this.output as unknown as NodeJS.WritableStream, 0);
      readline.clearLine(this.output as unknown as NodeJS.WritableStream, 0);
    } else {
      this.output.write('\n');
    }
    this.at = 'line-start';
  }
}
