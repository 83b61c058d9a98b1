// The chat loop: one input line at a time (node:readline, closed while anything else runs), each
// message a streamed turn, each slash command dispatched, and after each reply the overflow check
// (R19). Ctrl-C stops whatever runs and keeps the session; two at an empty prompt, Ctrl-D or /exit leave.
import type { TurnResult } from '../../../agent/agent.js';
import { AiZenError, describeError } from '../../../errors.js';
import type { OverflowInfo } from '../../../handoff/auto-migrate.js';
import type { HandoffMode, ReviewVerdict } from '../../../handoff/migration-service.js';
import { terminalReview } from '../review-document.js';
import type { ExecutorName } from '../../../session/format.js';
import type { ProjectHandoff } from '../handoff-extension.js';
import type { OpenProject } from '../../shared/open-project.js';
import { confirmMigrate } from './confirm-migrate.js';
import { contextUsage, describeUsage } from './context-usage.js';
import { helpText, recap, statusText } from './chat-text.js';
import { showHandoffProgress } from './handoff-view.js';
import { watchInterrupts } from './interrupt-watch.js';
import { findLastHandoff, type HandoffRecord } from './last-handoff.js';
import { chooseOnOverflow, type OverflowChoice } from './overflow-selector.js';
import { readLine, type InputHistory, type LineResult } from './read-line.js';
import { parseChatInput } from './slash-commands.js';
import type { Style } from './style.js';
import { TurnRenderer } from './turn-renderer.js';
import { shortId } from '../../../short-id.js';

export interface ChatTerminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  readonly style: Style;
  /**
   * Whether the terminal moves the cursor (not TERM=dumb; true by default): the status line then
   * sits under the input line; without, it is printed above the prompt.
   */
  readonly cursorControl?: boolean;
  /** Where SIGINT comes from (the real process by default). */
  readonly signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** For $VISUAL/$EDITOR at a migration's review (S2); the process's by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** `ai-zen "prompt"` in a terminal: sent as the first message, as if typed. */
  readonly firstMessage?: string;
}

export const PROMPT_SYMBOL = '› ';

export class ChatSession {
  private readonly history: InputHistory = { entries: [] };
  private lastHandoff: HandoffRecord | null = null;
  /** What Ctrl-C does right now; null while nothing is running (the input line handles its own). */
  private onInterrupt: (() => void) | null = null;
  private stopWatching: (() => void) | null = null;
  /** A Ctrl-C that came as a signal while no reader was open: it counts at the next prompt. */
  private pendingInterrupt = false;
  /** S5: the context is at or past warnAt and the one warning line was printed for this crossing. */
  private warned = false;

  constructor(
    private readonly project: OpenProject,
    private readonly handoff: ProjectHandoff | null,
    private readonly terminal: ChatTerminal,
  ) {}

  /** Runs until the person leaves. */
  async run(): Promise<void> {
    const { style } = this.terminal;
    const signals = this.terminal.signals ?? process;
    // A Ctrl-C that arrives as a signal (between two readers, or sent by `kill -INT`) must never
    // kill the chat with a reply half-recorded: it goes where a Ctrl-C key would.
    const onSignal = (): void => {
      if (this.onInterrupt) this.onInterrupt();
      else this.pendingInterrupt = true;
    };
    signals.on('SIGINT', onSignal);
    const stopProgress = this.handoff
      ? showHandoffProgress({
          events: this.handoff.events,
          write: (text) => this.write(text),
          style,
          onWritten: (record) => (this.lastHandoff = record),
        })
      : () => {};
    try {
      this.lastHandoff = await findLastHandoff(this.project.store, this.project.context.currentId);
      this.banner();
      await this.loop();
      this.write(style.dim(`Session ${this.project.context.currentId} saved. Carry on later with: ai-zen --continue\n`));
    } finally {
      stopProgress();
      this.stopInterruptible();
      signals.off('SIGINT', onSignal);
    }
  }

  /** The chooser AutoMigratePlugin calls after a reply that went over the window (R19). */
  async chooseOnOverflow(info: OverflowInfo): Promise<OverflowChoice> {
    const { input, output, style } = this.terminal;
    const choice = await chooseOnOverflow(info, style, { input, output });
    if (choice === 'skip') {
      // R19: recorded in the session, so the daemon does not migrate it anyway once the person leaves.
      await this.project.context.appendSkip(info.promptTokens).catch((error: unknown) => this.report(error));
      this.write(style.dim('Skipped: the history stays as it is. This comes back after the next reply while the context stays over.\n'));
    } else {
      // The migration runs next, inside the same after-turn step; Ctrl-C stops it and nothing is lost (R26).
      this.interruptible(() => this.project.agent.abort());
    }
    return choice;
  }

  /**
   * S3: the model called its handoff tool, mid-turn: the person gets the overflow selector's
   * choices. The turn's Ctrl-C watch lets go of the keyboard while the selector has it.
   */
  async chooseForAgent(goal: string | null): Promise<OverflowChoice> {
    const { input, output, style } = this.terminal;
    const handler = this.onInterrupt;
    this.stopInterruptible();
    try {
      const info: OverflowInfo = {
        sessionId: this.project.context.currentId,
        promptTokens: contextUsage(this.project.agent).used,
        maxContextTokens: this.project.agent.maxContextTokens,
        defaultExecutor: this.handoff?.service.defaultExecutor ?? 'self',
      };
      const towards = goal !== null ? ` towards: ${goal}` : '';
      this.write('\n');
      const choice = await chooseOnOverflow(
        info,
        style,
        { input, output },
        `The agent asks to hand its work over to a fresh session${towards}. Hand off?`,
      );
      if (choice === 'skip') this.write(style.dim('Declined: the agent carries on in this session.\n'));
      return choice;
    } finally {
      if (handler) this.interruptible(handler);
    }
  }

  private async loop(): Promise<void> {
    const { style } = this.terminal;
    let armedToLeave = false;
    const statusBelow = this.terminal.cursorControl !== false;
    let firstMessage = this.terminal.firstMessage;
    for (;;) {
      if (!statusBelow) this.write(`${this.statusLine()}\n`);
      let result: LineResult;
      if (firstMessage !== undefined) {
        // Shown where it would have been typed, then handled as any typed line.
        this.write(`${style.cyan(PROMPT_SYMBOL)}${firstMessage}\n`);
        this.history.entries.unshift(firstMessage);
        result = { kind: 'line', text: firstMessage };
        firstMessage = undefined;
      } else
        result = this.pendingInterrupt
          ? { kind: 'interrupt', hadText: false }
          : await readLine({
              input: this.terminal.input,
              output: this.terminal.output,
              prompt: style.cyan(PROMPT_SYMBOL),
              history: this.history,
              ...(statusBelow ? { status: () => this.statusLine() } : {}),
            });
      this.pendingInterrupt = false;
      if (result.kind === 'eof') return;
      if (result.kind === 'interrupt') {
        if (result.hadText) {
          armedToLeave = false;
          continue;
        }
        if (armedToLeave) return;
        armedToLeave = true;
        this.write(style.dim('(Ctrl-C again to leave, or Ctrl-D, or /exit)\n'));
        continue;
      }
      armedToLeave = false;
      const input = parseChatInput(result.text);
      switch (input.kind) {
        case 'empty':
          break;
        case 'message':
          await this.turn(input.text);
          break;
        case 'handoff':
          await this.handOff('handoff', input.executor, input.goal);
          break;
        case 'migrate':
          await this.handOff('migrate', input.executor, input.goal);
          break;
        case 'status':
          this.write(
            statusText({
              usage: contextUsage(this.project.agent),
              sessionId: this.project.context.currentId,
              sessionFile: this.project.context.sessionFile,
              root: this.project.root,
              model: this.project.config.model,
              lastHandoff: this.lastHandoff,
              style,
            }),
          );
          break;
        case 'help':
          this.write(helpText(style));
          break;
        case 'exit':
          return;
        case 'invalid':
          this.write(`${style.yellow(input.message)}\n`);
          break;
      }
    }
  }

  /** One message: the reply streams in, tool calls show as lines; then the overflow check. */
  private async turn(text: string): Promise<void> {
    const { agent } = this.project;
    if (!this.project.config.modelConfigured) {
      // Never fall through to a default endpoint nobody chose.
      this.write(
        `${this.terminal.style.yellow('No model configured, so nothing was sent: set OPENAI_API_KEY (and OPENAI_BASE_URL), or baseURL in .ai-zen/config.json.')}\n`,
      );
      return;
    }
    const renderer = new TurnRenderer(this.terminal.output, this.terminal.style);
    let result: TurnResult | null = null;
    this.interruptible(() => agent.abort());
    try {
      result = await agent.send(text, { observer: renderer });
      renderer.finish();
    } catch (error) {
      renderer.finish();
      this.report(error);
    } finally {
      this.stopInterruptible();
    }
    if (result === null) return;
    try {
      // Auto-migration hangs here (R19): it may call chooseOnOverflow and then migrate.
      await this.project.afterTurn(result);
    } catch (error) {
      this.report(error, 'handoff');
    } finally {
      this.stopInterruptible();
    }
    this.warnOnce();
  }

  /** S5: one line per crossing of warnAt, saying how to hand off now (past the window the overflow selector speaks instead). */
  private warnOnce(): void {
    const usage = contextUsage(this.project.agent);
    const { warnAt } = this.project.config;
    if (usage.percent < warnAt) {
      this.warned = false;
      return;
    }
    if (this.warned || usage.percent >= 100) return;
    this.warned = true;
    this.write(
      `${this.terminal.style.yellow(`Context at ${usage.percent}% of the window (warning at ${warnAt}%): hand off now with /migrate [goal], or /handoff to keep going.`)}\n`,
    );
  }

  /** /handoff (R1, R17: no question, repeatable) and /migrate (R2, R18: asks first). */
  private async handOff(mode: HandoffMode, executor: ExecutorName | null, goal: string | null = null): Promise<void> {
    const { style } = this.terminal;
    if (this.handoff === null) {
      this.write(`${style.yellow('handoff is not available in this build')}\n`);
      return;
    }
    if (mode === 'migrate') {
      const yes = await confirmMigrate({ input: this.terminal.input, output: this.terminal.output });
      if (!yes) {
        this.write(style.dim('Not migrated; the conversation goes on.\n'));
        return;
      }
    }
    const controller = new AbortController();
    const onInterrupt = (): void => {
      controller.abort();
      this.project.agent.abort();
    };
    this.interruptible(onInterrupt);
    // S2: a /migrate pauses once its document is written: continue, edit it, or cancel.
    const review = async (doc: { path: string; absolutePath: string }): Promise<ReviewVerdict> => {
      this.stopInterruptible();
      try {
        return await terminalReview({ input: this.terminal.input, output: this.terminal.output, env: this.terminal.env ?? process.env })(
          doc,
        );
      } finally {
        this.interruptible(onInterrupt);
      }
    };
    try {
      const outcome = await this.handoff.service.handoff({
        mode,
        ...(executor ? { executor } : {}),
        ...(goal !== null ? { goal } : {}),
        ...(mode === 'migrate' ? { review } : {}),
        signal: controller.signal,
      });
      if (outcome.cancelled)
        this.write(style.yellow(`Migration cancelled: this session goes on as it was. The document stays at ${outcome.path}.\n`));
    } catch (error) {
      this.report(error, 'handoff');
    } finally {
      this.stopInterruptible();
    }
  }

  private report(error: unknown, during: 'turn' | 'handoff' = 'turn'): void {
    const { style } = this.terminal;
    this.project.logger.warn({ err: error, sessionId: this.project.context.currentId }, `chat ${during} failed`);
    if (AiZenError.isInstance(error) && error.code === 'aborted') {
      this.write(
        style.yellow(
          during === 'handoff'
            ? 'Handoff interrupted. Nothing was lost; the conversation goes on.\n'
            : 'Interrupted. The session is kept; carry on, or /exit.\n',
        ),
      );
      return;
    }
    const after = during === 'handoff' ? ' Nothing was lost; you can retry or carry on.' : '';
    this.write(`${style.red(`Error: ${describeError(error)}`)}${after}\n`);
  }

  private banner(): void {
    const { style } = this.terminal;
    const { project } = this;
    const count = project.agent.messages.length;
    const how = project.resumed ? `resumed, ${count} message${count === 1 ? '' : 's'}` : 'new';
    this.write(`${style.bold('ai-zen')} ${style.dim(`· ${project.config.model} · session ${project.context.currentId} (${how})`)}\n`);
    if (project.resumed) this.write(recap(project.agent.messages, style, this.terminal.output.columns));
    if (!project.config.modelConfigured) {
      this.write(
        style.yellow(
          'No model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL), or baseURL in .ai-zen/config.json. /handoff still works offline.\n',
        ),
      );
    }
    this.write(style.dim('Type a request, or /help. Ctrl-C stops a reply; Ctrl-D leaves.\n'));
  }

  /** The line under the input line (above the prompt on a dumb terminal): the context percentage at all times. */
  private statusLine(): string {
    const { style } = this.terminal;
    const usage = contextUsage(this.project.agent);
    // One row, never wrapped (the status must not push the prompt): on a narrow terminal the session,
    // then the model give way before the percentage is cut.
    const width = Math.max(20, (this.terminal.output.columns ?? 80) - 1);
    const parts = [describeUsage(usage), this.project.config.model, shortId(this.project.context.currentId)];
    const texts = [3, 2, 1].map((count) => `── ${parts.slice(0, count).join(' · ')} ──`);
    const text = texts.find((candidate) => candidate.length <= width) ?? texts.at(-1)!;
    const fitted = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    if (usage.percent >= 100) return style.red(fitted);
    if (usage.percent >= this.project.config.warnAt) return style.yellow(fitted);
    return style.dim(fitted);
  }

  /** Ctrl-C runs `handler` until stopInterruptible(); stdin is read here meanwhile. */
  private interruptible(handler: () => void): void {
    this.stopInterruptible();
    this.onInterrupt = handler;
    this.stopWatching = watchInterrupts({ input: this.terminal.input }, handler);
  }

  private stopInterruptible(): void {
    this.stopWatching?.();
    this.stopWatching = null;
    this.onInterrupt = null;
  }

  private write(text: string): void {
    this.terminal.output.write(text);
  }
}
