// AutoMigratePlugin (R19, R20, R15): notices a response whose prompt_tokens went past the model's
// window and, once the turn is over, asks a chooser what to do and runs the migration. It never
// migrates inside a turn (the handoff turn is itself a send), and it stands aside while the service
// is busy, so a handoff can never trigger a migration that triggers a handoff.
import type { AgentView, Plugin } from '../agent/types.js';
import type { Logger } from 'pino';
import type { EventBus } from '../events.js';
import { silentLogger } from '../log/logger.js';
import type { ChatMessage, ExecutorName, Usage } from '../session/format.js';
import type { HandoffOutcome, HandoffRequest } from './migration-service.js';

export interface OverflowInfo {
  readonly sessionId: string;
  readonly promptTokens: number;
  readonly maxContextTokens: number;
  /** What a person gets by just pressing Enter (R19: self-handoff highlighted). */
  readonly defaultExecutor: ExecutorName;
}

/** The terminal UI brings the interactive selector (R19); without a TTY the default is used silently (R20). */
export type AutoMigrateChooser = (info: OverflowInfo) => Promise<ExecutorName | 'skip'>;

/** The part of the migration service the plugin uses. */
export interface AutoMigrateService {
  readonly busy: boolean;
  readonly defaultExecutor: ExecutorName;
  handoff(request: HandoffRequest): Promise<HandoffOutcome>;
}

export interface AutoMigrateOptions {
  readonly service: AutoMigrateService;
  /** Default: the service's default executor, without asking (R20). */
  readonly choose?: AutoMigrateChooser;
  readonly events?: EventBus;
  readonly logger?: Logger;
}

export type AutoMigrateResult =
  | { readonly action: 'none' }
  | { readonly action: 'skipped'; readonly overflow: OverflowInfo }
  | { readonly action: 'migrated'; readonly overflow: OverflowInfo; readonly outcome: HandoffOutcome };

export function nonInteractiveChooser(): AutoMigrateChooser {
  return async (info) => info.defaultExecutor;
}

export class AutoMigratePlugin implements Plugin {
  readonly name = 'auto-migrate';
  private overflow: OverflowInfo | null = null;
  private readonly logger: Logger;

  constructor(private readonly options: AutoMigrateOptions) {
    this.logger = options.logger ?? silentLogger();
  }

  /** The overflow seen in the turn that just ran, waiting for `afterTurn()`. */
  get pending(): OverflowInfo | null {
    return this.overflow;
  }

  afterResponse(response: { message: ChatMessage; usage: Usage | null }, agent: AgentView): void {
    // R15: the handoff turn's own responses are over the limit too; they must not start anything.
    if (this.options.service.busy || response.usage === null) return;
    const promptTokens = response.usage.prompt_tokens;
    if (promptTokens <= agent.maxContextTokens) {
      this.overflow = null;
      return;
    }
    const first = this.overflow === null;
    this.overflow = {
      sessionId: agent.sessionId,
      promptTokens,
      maxContextTokens: agent.maxContextTokens,
      defaultExecutor: this.options.service.defaultExecutor,
    };
    if (first) {
      this.options.events?.emit('session.overflowed', {
        sessionId: agent.sessionId,
        promptTokens,
        maxContextTokens: agent.maxContextTokens,
        source: 'ai-zen',
      });
    }
  }

  /**
   * Call once the turn is over (its `send()` has returned). Asks the chooser and migrates, or leaves
   * the history alone on skip — and asks again after the next reply while usage stays over (R19).
   */
  async afterTurn(): Promise<AutoMigrateResult> {
    const overflow = this.overflow;
    if (overflow === null || this.options.service.busy) return { action: 'none' };
    this.overflow = null;
    const choose = this.options.choose ?? nonInteractiveChooser();
    const choice = await choose(overflow);
    if (choice === 'skip') {
      this.logger.info({ ...overflow }, 'auto-migration skipped');
      return { action: 'skipped', overflow };
    }
    this.logger.info({ ...overflow, executor: choice }, 'auto-migration starting');
    const outcome = await this.options.service.handoff({ mode: 'migrate', executor: choice });
    return { action: 'migrated', overflow, outcome };
  }
}
