// What a transcript's tool calls did, gathered as its messages go by: each distinct command with its
// number of runs and exit statuses, each file changed with the tools that changed it, the files only
// read, and the file names its messages mention. Linear in the calls and bounded: a transcript of
// any size leaves the same few maps, which is what lets a long session's reader drop its old messages.
import type { AgentMessage } from '../session/session-recorder.js';
import { messageText, sessionToolCalls, exitCodeOf, FILE_TOOLS, failedResult } from './transcript.js';

/** At most this many changed files and read files are kept (a check of the changed files needs them all). */
export const MAX_DISTINCT = 20_000;
/** The first distinct commands of a session are kept, and the latest: between them, only their runs are counted. */
export const FIRST_COMMANDS = 50;
export const LATEST_COMMANDS = 1_000;
/** At most this many file names mentioned are kept (a check against the first ones is still a check). */
export const MAX_NAMED = 50_000;
/** A command longer than this is kept as its head: a heredoc of a whole file is not a command list's business. */
export const MAX_COMMAND_CHARACTERS = 2_000;

/** A word that looks like a file path: a folder and a name, or a name with an extension. */
export const PATH_WORD = /(?:[\w.@~-]+\/)+[\w.@-]+|[\w@-][\w.@-]*\.[A-Za-z0-9]{1,8}\b/g;

export interface CommandRuns {
  runs: number;
  /** Each exit status it had, in the order first seen (null: not known). */
  readonly codes: (number | null)[];
  last: number | null;
}

export class ActivityDigest {
  /** The first FIRST_COMMANDS distinct commands, in the order first run. */
  readonly firstCommands = new Map<string, CommandRuns>();
  /** The latest LATEST_COMMANDS distinct commands after them, in the order first run. */
  readonly latestCommands = new Map<string, CommandRuns>();
  /** Runs of the commands let go of between the first and the latest. */
  commandRunsLeftOut = 0;
  /** How many distinct commands were let go of (a command run again after is counted again). */
  commandsLeftOut = 0;
  /** path → the tools that changed it, in the order first touched. */
  readonly changed = new Map<string, string[]>();
  readonly read = new Set<string>();
  readonly named = new Set<string>();

  /** A digest of `messages` over what `earlier` already holds (which is left as it was). */
  static of(messages: readonly AgentMessage[], earlier?: ActivityDigest): ActivityDigest {
    const digest = new ActivityDigest();
    if (earlier) {
      for (const [command, runs] of earlier.firstCommands) digest.firstCommands.set(command, { ...runs, codes: [...runs.codes] });
      for (const [command, runs] of earlier.latestCommands) digest.latestCommands.set(command, { ...runs, codes: [...runs.codes] });
      digest.commandRunsLeftOut = earlier.commandRunsLeftOut;
      digest.commandsLeftOut = earlier.commandsLeftOut;
      for (const [file, tools] of earlier.changed) digest.changed.set(file, [...tools]);
      for (const file of earlier.read) digest.read.add(file);
      for (const word of earlier.named) digest.named.add(word);
    }
    digest.add(messages);
    return digest;
  }

  /** Folds these messages in (our own handoff turns left out, as toolActivity does). */
  add(messages: readonly AgentMessage[]): void {
    for (const { name, args, result } of sessionToolCalls(messages)) {
      if (name === 'exec' && typeof args.command === 'string') {
        this.command(args.command, exitCodeOf(result));
        continue;
      }
      if (failedResult(result)) continue;
      if (name === 'read' && typeof args.path === 'string' && args.path !== '') {
        if (this.read.size < MAX_DISTINCT) this.read.add(args.path);
        continue;
      }
      for (const key of FILE_TOOLS[name] ?? []) {
        const value = args[key];
        if (typeof value === 'string') this.change(value, name);
      }
    }
    for (const entry of messages) {
      this.mention(messageText(entry.message));
      for (const call of entry.message.tool_calls ?? []) this.mention(call.function.arguments);
    }
  }

  /** The files only read (never changed), in the order first read. */
  readOnly(): string[] {
    return [...this.read].filter((file) => !this.changed.has(file));
  }

  private command(text: string, code: number | null): void {
    const command = text.length > MAX_COMMAND_CHARACTERS ? `${text.slice(0, MAX_COMMAND_CHARACTERS)}…` : text;
    const runs = this.firstCommands.get(command) ?? this.latestCommands.get(command);
    if (runs) {
      runs.runs += 1;
      runs.last = code;
      if (!runs.codes.includes(code)) runs.codes.push(code);
      return;
    }
    const first = { runs: 1, codes: [code], last: code };
    if (this.firstCommands.size < FIRST_COMMANDS) {
      this.firstCommands.set(command, first);
      return;
    }
    this.latestCommands.set(command, first);
    if (this.latestCommands.size > LATEST_COMMANDS) {
      // The oldest of the latest is let go of: a Map keeps the order its keys came in.
      const [oldest, gone] = this.latestCommands.entries().next().value!;
      this.latestCommands.delete(oldest);
      this.commandRunsLeftOut += gone.runs;
      this.commandsLeftOut += 1;
    }
  }

  private change(file: string, tool: string): void {
    const tools = this.changed.get(file);
    if (tools) {
      if (!tools.includes(tool)) tools.push(tool);
    } else if (this.changed.size < MAX_DISTINCT) this.changed.set(file, [tool]);
  }

  /** Keeps the file names `text` mentions. */
  mention(text: string): void {
    // A path word never spans white space and always holds a dot or a slash: the pattern runs only
    // on the tokens around them (the same words, many times faster over a tool's long output).
    let dot = text.indexOf('.');
    let slash = text.indexOf('/');
    for (let at = 0; at < text.length && this.named.size < MAX_NAMED; ) {
      // Each is looked for again only once passed: one pass over the text, whichever is rare.
      if (dot !== -1 && dot < at) dot = text.indexOf('.', at);
      if (slash !== -1 && slash < at) slash = text.indexOf('/', at);
      const hit = dot === -1 ? slash : slash === -1 ? dot : Math.min(dot, slash);
      if (hit === -1) return;
      let start = hit;
      while (start > at && !isSpace(text.charCodeAt(start - 1))) start -= 1;
      let end = hit + 1;
      while (end < text.length && !isSpace(text.charCodeAt(end))) end += 1;
      for (const word of text.slice(start, end).match(PATH_WORD) ?? []) {
        if (this.named.size >= MAX_NAMED) return;
        this.named.add(word);
      }
      at = end;
    }
  }
}

/** Space, tab, line feed, vertical tab, form feed, carriage return. */
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);
