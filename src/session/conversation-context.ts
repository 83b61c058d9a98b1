// The conversation context: the ONE owner of the current session id (R27). Everything that
// records or asks "which session is this?" goes through it, so after a migration the next
// auto-save can only land in the new file — never the pruned shell over the old one. It is the
// recorder the agent writes through; opening a session is open-session.ts, the migration's
// writes are migration-write-sequence.ts, and the lines themselves session-lines.ts.
import path from 'node:path';
import { AiZenError } from '../errors.js';
import type { HeldLock } from '../lock/os-lock.js';
import type { AppendHandle } from './append-handle.js';
import { type ChatMessage, HandoffLine, type HeaderLine, type SessionLine, SkipLine, type Usage, UsageLine } from './format.js';
import { writeMigration } from './migration-write-sequence.js';
import {
  type CreateOptions,
  createSessionFile,
  latestSessionId,
  openSessionFile,
  type SessionDependencies,
  type SessionOptions,
  sessionDependencies,
} from './open-session.js';
import type { AgentMessage, SessionRecorder } from './session-recorder.js';
import { messageLine, serializeLine, validated } from './session-lines.js';
import { assertSessionId } from './session-id.js';

export interface OpenedSession {
  readonly context: ConversationContext;
  /** The conversation as recorded, definition messages flagged. */
  readonly messages: AgentMessage[];
  readonly lastUsage: Usage | null;
  readonly header: HeaderLine;
  /** The session ends with a `migrated` line: its history goes on in a successor. */
  readonly closed: boolean;
}

export interface MigrateOptions {
  /** Kept by prune (R24): system prompt, project rules. */
  definitionMessages: ChatMessage[];
  /** The one message that holds nothing but the doc path (R4, R24). */
  breakpoint: ChatMessage;
  /** Project-relative path of the handoff document. */
  docPath: string;
}

export class ConversationContext implements SessionRecorder {
  private id: string;
  private currentHeader: HeaderLine;
  private handle: AppendHandle | null;
  private lock: HeldLock | null;
  // The migrate handoff line this session ends with (no message after it) — its
  // document is written and only the new session is missing; a retry reuses it.
  private unfinished: HandoffLine | null;
  // Appends and migrate run one after another, so a line never lands in a file the id left.
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly deps: SessionDependencies,
    file: { header: HeaderLine; handle: AppendHandle; lock: HeldLock },
    unfinished: HandoffLine | null = null,
  ) {
    this.id = file.header.id;
    this.currentHeader = file.header;
    this.handle = file.handle;
    this.lock = file.lock;
    this.unfinished = unfinished;
  }

  /** Starts a new session: writes its header line and makes it the latest session. */
  static async create(options: CreateOptions): Promise<ConversationContext> {
    const deps = sessionDependencies(options);
    return new ConversationContext(deps, await createSessionFile(deps, options));
  }

  /** Opens session `id` to carry on appending to it. */
  static async open(options: SessionOptions & { id: string }): Promise<OpenedSession> {
    const deps = sessionDependencies(options);
    const file = await openSessionFile(deps, assertSessionId(options.id));
    const context = new ConversationContext(deps, file, file.unfinished);
    return { context, messages: file.messages, lastUsage: file.lastUsage, header: file.header, closed: file.closed };
  }

  /** Opens the session the latest pointer names, or the successor it was migrated to; null when there is none. */
  static async openLatest(options: SessionOptions): Promise<OpenedSession | null> {
    const id = await latestSessionId(sessionDependencies(options));
    return id === null ? null : ConversationContext.open({ ...options, id });
  }

  /** The current session id (R27): the one every append uses. */
  get currentId(): string {
    return this.id;
  }

  get header(): HeaderLine {
    return this.currentHeader;
  }

  get sessionFile(): string {
    return this.deps.store.sessionFile(this.id);
  }

  /** The migration this session's file says was written but never finished, if any. */
  get unfinishedMigration(): HandoffLine | null {
    return this.unfinished;
  }

  async appendMessage(message: ChatMessage, options: { definition?: boolean } = {}): Promise<void> {
    const line = messageLine(message, options.definition === true);
    this.unfinished = null;
    return this.enqueue(() => this.write(line));
  }

  async appendUsage(usage: Usage): Promise<void> {
    // The three counts of SPEC v1; provider extras (cached tokens, …) are not part of the contract.
    const line = validated(
      UsageLine,
      {
        type: 'usage',
        usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
      },
      'usage',
    );
    return this.enqueue(() => this.write(line));
  }

  async appendLine(line: HandoffLine): Promise<void> {
    const valid = validated(HandoffLine, line, 'handoff line');
    return this.enqueue(async () => {
      await this.write(valid);
      this.unfinished = valid.mode === 'migrate' ? valid : null;
    });
  }

  /**
   * R19: the person declined the handoff at the overflow selector (Esc). Recorded and made durable,
   * so the daemon does not migrate this crossing behind their back once they leave.
   */
  async appendSkip(promptTokens: number): Promise<void> {
    const line = validated(SkipLine, { type: 'skip', at: this.deps.now().toISOString(), promptTokens }, 'skip line');
    return this.enqueue(async () => {
      await this.write(line);
      await this.requireHandle().sync();
    });
  }

  /** Makes every append so far durable (fsync). */
  flush(): Promise<void> {
    return this.enqueue(() => this.requireHandle().sync());
  }

  /** Flushes and closes the file and gives up ownership of the session; further appends fail. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      const handle = this.handle;
      const lock = this.lock;
      this.handle = null;
      this.lock = null;
      try {
        if (handle) await handle.sync();
      } finally {
        await handle?.close();
        await lock?.release();
      }
    });
  }

  /**
   * Moves the conversation to a new session holding only the definition messages and the
   * breakpoint (R24, R25): the writes in their crash-safe order (migration-write-sequence.ts),
   * then the id switches. The old file is closed and its lock given up only after that.
   */
  async migrate(options: MigrateOptions): Promise<{ oldId: string; newId: string }> {
    const body = [...options.definitionMessages.map((message) => messageLine(message, true)), messageLine(options.breakpoint, false)];
    return this.enqueue(async () => {
      const oldId = this.id;
      const oldHandle = this.requireHandle();
      const next = await writeMigration(this.deps, {
        from: { header: this.currentHeader, handle: oldHandle },
        body,
        docPath: options.docPath,
      });
      const oldLock = this.lock;
      this.id = next.header.id;
      this.currentHeader = next.header;
      this.handle = next.handle;
      this.lock = next.lock;
      this.unfinished = null;
      await oldHandle.close().catch(() => {});
      await oldLock?.release();
      const { paths, logger } = this.deps;
      logger.info({ oldId, newId: this.id, path: options.docPath, file: path.relative(paths.root, this.sessionFile) }, 'session migrated');
      return { oldId, newId: this.id };
    });
  }

  private requireHandle(): AppendHandle {
    if (!this.handle) throw new AiZenError('session', `session ${this.id} is closed`);
    return this.handle;
  }

  private async write(line: SessionLine): Promise<void> {
    await this.requireHandle().write(serializeLine(line));
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => {});
    return result;
  }
}
