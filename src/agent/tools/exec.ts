// `exec {command}`: run a shell command in the project root, with a time limit and an output cap.
// Not confined like the file tools — a shell can reach anything the user can (R13); the file
// tools' confinement is about mistakes, not a sandbox.
import { z } from 'zod';
import { runProcess } from '../../run-process.js';
import { defineTool, toolOk } from './tool-result.js';

export interface ExecOptions {
  readonly timeoutMs: number;
  /** Characters of output the model sees; the middle of a longer output is cut out. */
  readonly outputLimit: number;
  readonly env?: NodeJS.ProcessEnv;
}

const schema = z.object({ command: z.string().min(1).describe('Shell command, run with /bin/sh -c in the project root') });

/** Keeps the first and the last part of a stream of text, and counts the rest. */
class OutputCap {
  private head = '';
  private tail = '';
  total = 0;
  constructor(private readonly limit: number) {}

  push(text: string): void {
    this.total += text.length;
    const headRoom = Math.ceil(this.limit / 2) - this.head.length;
    if (headRoom > 0) {
      this.head += text.slice(0, headRoom);
      text = text.slice(headRoom);
    }
    if (text.length > 0) this.tail = (this.tail + text).slice(-Math.floor(this.limit / 2));
  }

  render(): string {
    const shown = this.head.length + this.tail.length;
    if (this.total <= shown) return this.head + this.tail;
    const note = `\n[output truncated: ${this.total} characters; showing the first ${this.head.length} and the last ${this.tail.length}]\n`;
    return this.head + note + this.tail;
  }
}

export function createExecTool(options: ExecOptions) {
  return defineTool({
    name: 'exec',
    description: `Run a shell command (/bin/sh -c) in the project root. Output (stdout and stderr) is capped at ${options.outputLimit} characters; the command is killed after ${duration(options.timeoutMs)}.`,
    schema,
    async run(args, { root, signal }) {
      const output = new OutputCap(options.outputLimit);
      // Its own process group, so a timeout or an abort kills the whole pipeline, not just sh.
      // A background process may hold the pipes open after sh exits: read them half a second more.
      const result = await runProcess('/bin/sh', ['-c', args.command], {
        cwd: root,
        env: options.env ?? execEnv(),
        timeoutMs: options.timeoutMs,
        ...(signal ? { signal } : {}),
        processGroup: true,
        drainMs: 500,
        maxBuffer: 0,
        onOutput: (text) => output.push(text),
      });
      const body = output.render();
      let status: string;
      let isError: boolean;
      if (result.startError) [status, isError] = [`could not run: ${result.startError.message}`, true];
      else if (result.stopped === 'timeout') [status, isError] = [`killed: no exit within ${duration(options.timeoutMs)}`, true];
      else if (result.stopped === 'aborted') [status, isError] = ['killed: the turn was aborted', true];
      else if (result.signal) [status, isError] = [`killed by ${result.signal}`, true];
      else [status, isError] = [`exit code ${result.exitCode ?? 0}`, result.exitCode !== 0];
      const forModel = `${body}${body === '' || body.endsWith('\n') ? '' : '\n'}[${status}]`;
      const size = output.total > 0 ? `, ${output.total} chars` : '';
      return { ...toolOk(forModel, `exec ${oneLine(args.command)} (${status}${size})`), isError };
    },
  });
}

/** The user's environment, minus the model api key: commands the model writes have no need of it. */
function execEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  return env;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
