// The conversation context: the ONE owner of the current session id (R27). Everything that
// records or asks "which session is this?" goes through it, so after a migration the next
// auto-save can only land in the new file — never the pruned shell over the old one.
import path from 'node:path';
import type { z } from 'zod';
import { AiZenError, SessionOwnedError } from '../errors.js';
import { writeFileInside } from '../fs/safe-write.js';
import { acquireLock, lockHolder, sessionLockName, type HeldLock } from '../lock/os-lock.js';
import { parseSessionHolder, sessionHeldMessage, sessionHolderLine, type SessionHolderKind } from '../lock/session-holder.js';
import type { Env, ProjectPaths } from '../paths.js';
import {
  type ChatMessage,
  HandoffLine,
  HeaderLine,
  MessageLine,
  MigratedLine,
  SkipLine,
  type Usage,
  UsageLine,
  type SessionLine,
} from './format.js';
import { AppendHandle } from './append-handle.js';
import type { AgentMessage, SessionRecorder } from './session-recorder.js';
import { pauseHookFromEnv, type MigrationStage, type PauseHook } from './pause-hook.js';
import { assertSessionId, newSessionId } from './session-id.js';
import { SessionStore } from './store.js';
import type { Logger } from 'pino';
import { silentLogger } from '../log/logger.js';

export interface OpenedSession {
  readonly context: ConversationContext;
  /** The conversation as recorded, definition messages flagged. */
  readonly messages: AgentMessage[];
  readonly lastUsage: Usage | null;
  readonly header: HeaderLine;
  /** The session ends with a `migrated` line: its history goes on in a successor. */
  readonly closed: boolean;
}

interface Dependencies {
  readonly paths: ProjectPaths;
  readonly store: SessionStore;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly logger: Logger;
  readonly pause: PauseHook;
  readonly env: Env;
  readonly holder: SessionHolderKind;
}

interface CommonOptions {
  paths: ProjectPaths;
  logger?: Logger;
  now?: () => Date;
  newId?: () => string;
  /** Test-only: pause at a migration stage (default: from AI_ZEN_TEST_PAUSE_AT in `env`). */
  pauseAt?: PauseHook;
  env?: Env;
  /** Who takes the session's lock, told to a process it refuses (default: an ai-zen process). */
  holder?: SessionHolderKind;
}

export interface CreateOptions extends CommonOptions {
  model: string;
  maxContextTokens: number;
  previousId?: string | null;
  /** Recorded in the header; defaults to the project root. */
  cwd?: string;
}

export interface MigrateOptions {
  /** Kept by prune (R24): system prompt, project rules. */
  definitionMessages: ChatMessage[];
  /** The one message that holds nothing but the doc path (R4, R24). */
  breakpoint: ChatMessage;
  /** Project-relative path of the handoff document. */
  docPath: string;
}

const MAX_SUCCESSOR_HOPS = 1000;

function dependencies(options: CommonOptions): Dependencies {
  const logger = options.logger ?? silentLogger();
  return {
    paths: options.paths,
    store: new SessionStore(options.paths, { logger }),
    now: options.now ?? (() => new Date()),
    newId: options.newId ?? newSessionId,
    logger,
    pause: options.pauseAt ?? pauseHookFromEnv(options.env ?? process.env) ?? (async () => {}),
    env: options.env ?? process.env,
    holder: options.holder ?? 'ai-zen',
  };
}

/**
 * Ownership: the live process that has a session open holds an OS lock on its file, so the
 * daemon leaves that session's migration to it, and no two processes append to one session.
 * The kernel frees the lock when the process dies, however it dies.
 */
async function takeSessionLock(file: string, id: string, deps: Pick<Dependencies, 'env' | 'holder'>): Promise<HeldLock> {
  const name = sessionLockName(file);
  const lock = await acquireLock(name, { env: deps.env, holder: sessionHolderLine(deps.holder) });
  if (!lock) {
    // Issue 11 §15: the lock names its holder, so the refusal says who has the session.
    const holder = parseSessionHolder(await lockHolder(name, { env: deps.env }).catch(() => null));
    throw new SessionOwnedError(id, sessionHeldMessage(id, holder));
  }
  return lock;
}

/** The last migrate handoff line, unless a message came after it (then the document is out of date). */
function unfinishedMigrationOf(lines: readonly SessionLine[]): HandoffLine | null {
  let unfinished: HandoffLine | null = null;
  for (const line of lines) {
    if (line.type === 'handoff') unfinished = line.mode === 'migrate' ? line : null;
    else if (line.type === 'message') unfinished = null;
  }
  return unfinished;
}

function serialize(line: SessionLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** zod at the boundary: a line that does not match v1 is refused with one clear line, never written. */
function validated<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new AiZenError('session', `refusing to record an invalid ${what}${where}: ${issue?.message ?? 'does not match the schema'}`);
}

function messageLine(message: ChatMessage, definition: boolean): MessageLine {
  return validated(MessageLine, definition ? { type: 'message', message, definition: true } : { type: 'message', message }, 'message');
}

export class ConversationContext implements SessionRecorder {
  private id: string;
  private currentHeader: HeaderLine;
  private handle: AppendHandle | null;
  private lock: HeldLock | null;
  // Issue 11 §4: the migrate handoff line this session ends with (no message after it) — its
  // document is written and only the new session is missing; a retry reuses it.
  private unfinished: HandoffLine | null = null;
  // Appends and migrate run one after another, so a line never lands in a file the id left.
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly deps: Dependencies,
    header: HeaderLine,
    handle: AppendHandle,
    lock: HeldLock,
  ) {
    this.id = header.id;
    this.currentHeader = header;
    this.handle = handle;
    this.lock = lock;
  }

  /** Starts a new session: writes its header line and makes it the latest session. */
  static async create(options: CreateOptions): Promise<ConversationContext> {
    const deps = dependencies(options);
    const id = assertSessionId(deps.newId());
    const header = validated(
      HeaderLine,
      {
        type: 'session',
        v: 1,
        id,
        createdAt: deps.now().toISOString(),
        cwd: options.cwd ?? deps.paths.root,
        model: options.model,
        maxContextTokens: options.maxContextTokens,
        previousId: options.previousId ?? null,
      },
      'session header',
    );
    const handle = await AppendHandle.create(deps.paths.root, deps.store.sessionFile(id), serialize(header));
    let lock: HeldLock | null = null;
    try {
      // Taken once the file exists, so its name is computed from the same real path the daemon sees.
      // Until then the file holds only a header: nothing the daemon would act on.
      lock = await takeSessionLock(handle.file, id, deps);
      await deps.store.writeLatestPointer({ id, previousId: header.previousId });
    } catch (error) {
      await handle.close();
      await lock?.release();
      throw error;
    }
    return new ConversationContext(deps, header, handle, lock);
  }

  /** Opens session `id` to carry on appending to it. */
  static async open(options: CommonOptions & { id: string }): Promise<OpenedSession> {
    const deps = dependencies(options);
    const id = assertSessionId(options.id);
    // First the lock: reading and repairing the file is for its owner only.
    const lock = await takeSessionLock(deps.store.sessionFile(id), id, deps);
    let handle: AppendHandle | null = null;
    let content;
    try {
      content = await deps.store.read(id);
      handle = await AppendHandle.open(deps.paths.root, deps.store.sessionFile(id));
      // A torn last line must not swallow the next line: end it, readers skip it.
      if (content.tornTail) {
        deps.logger.warn({ sessionId: id }, 'session file ended in a torn line; starting a new line');
        await handle.write('\n');
      }
    } catch (error) {
      await handle?.close();
      await lock.release();
      throw error;
    }
    const messages: AgentMessage[] = [];
    let lastUsage: Usage | null = null;
    for (const line of content.lines) {
      if (line.type === 'message') messages.push(line.definition ? { message: line.message, definition: true } : { message: line.message });
      else if (line.type === 'usage') lastUsage = line.usage;
    }
    const closed = content.lines.at(-1)?.type === 'migrated';
    const context = new ConversationContext(deps, content.header, handle, lock);
    context.unfinished = closed ? null : unfinishedMigrationOf(content.lines);
    return { context, messages, lastUsage, header: content.header, closed };
  }

  /**
   * Opens the session the latest pointer names — or its successor when it ends with a
   * `migrated` line and the successor's file exists (a kill between that line and the pointer
   * switch must still land `--continue` in the new session). Null when there is no pointer.
   */
  static async openLatest(options: CommonOptions): Promise<OpenedSession | null> {
    const deps = dependencies(options);
    const pointer = await deps.store.readLatestPointer();
    if (pointer === null) return null;
    let id = pointer.id;
    for (let hop = 0; hop < MAX_SUCCESSOR_HOPS; hop += 1) {
      const content = await deps.store.read(id);
      const last = content.lines.at(-1);
      if (last?.type !== 'migrated' || !(await deps.store.exists(last.newId))) break;
      try {
        const successor = await deps.store.read(last.newId);
        // Only a session this one really handed over to; never an unrelated file that shares the id.
        if (successor.header.previousId !== id) {
          deps.logger.warn({ sessionId: id, successor: last.newId }, 'successor session names another predecessor; staying here');
          break;
        }
      } catch (error) {
        deps.logger.warn({ sessionId: id, successor: last.newId, error }, 'successor session unreadable; staying on its predecessor');
        break;
      }
      id = last.newId;
    }
    return ConversationContext.open({ ...options, id });
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

  /** Issue 11 §4: the migration this session's file says was written but never finished, if any. */
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
   * breakpoint (R24, R25). The ORDER is what keeps history alive at any kill point:
   * fsync the old file (it already holds the handoff turn) → write the new file atomically →
   * append `migrated` to the old file and fsync → switch the latest pointer → switch the id.
   * Until the `migrated` line is durable the old session stays the live one; after it, the
   * successor is (openLatest follows it even if the pointer switch never happened).
   */
  async migrate(options: MigrateOptions): Promise<{ oldId: string; newId: string }> {
    const definitionMessages = options.definitionMessages.map((message) => messageLine(message, true));
    const breakpoint = messageLine(options.breakpoint, false);
    return this.enqueue(async () => {
      const { store, paths, logger } = this.deps;
      const oldId = this.id;
      const oldHandle = this.requireHandle();
      await this.pause('before-archive');
      await oldHandle.sync();
      await this.pause('after-archive');

      const newId = assertSessionId(this.deps.newId());
      if (newId === oldId) throw new AiZenError('session', `new session id ${newId} equals the old one`);
      const newHeader = validated(
        HeaderLine,
        {
          ...this.currentHeader,
          id: newId,
          createdAt: this.deps.now().toISOString(),
          previousId: oldId,
        },
        'session header',
      );
      const newFile = store.sessionFile(newId);
      const content = [newHeader, ...definitionMessages, breakpoint].map(serialize).join('');
      try {
        await writeFileInside(paths.root, newFile, content, { exclusive: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new AiZenError('session', `session ${newId} already exists`, { cause: error });
        throw error;
      }
      const newHandle = await AppendHandle.open(paths.root, newFile);
      // Ownership moves with the conversation: the new file is ours before the old one says it is closed.
      let newLock: HeldLock;
      try {
        newLock = await takeSessionLock(newHandle.file, newId, this.deps);
      } catch (error) {
        await newHandle.close();
        throw error;
      }
      await this.pause('after-new-session');

      try {
        const migrated = validated(
          MigratedLine,
          { type: 'migrated', at: this.deps.now().toISOString(), newId, path: options.docPath },
          'migrated line',
        );
        await oldHandle.write(serialize(migrated));
        await oldHandle.sync();
      } catch (error) {
        await newHandle.close();
        await newLock.release();
        throw error;
      }
      await this.pause('after-migrated-line');

      // The migrated line is the commit point: a pointer that cannot be switched is repaired
      // by openLatest following that line, so this is logged rather than undoing the migration.
      try {
        await store.writeLatestPointer({ id: newId, previousId: oldId });
      } catch (error) {
        logger.error({ oldId, newId, error }, 'could not switch the latest-session pointer; --continue will follow the migrated line');
      }
      await this.pause('after-pointer');

      const oldLock = this.lock;
      this.id = newId;
      this.currentHeader = newHeader;
      this.handle = newHandle;
      this.lock = newLock;
      this.unfinished = null;
      await oldHandle.close().catch(() => {});
      await oldLock?.release();
      logger.info({ oldId, newId, path: options.docPath, file: path.relative(paths.root, newFile) }, 'session migrated');
      return { oldId, newId };
    });
  }

  private pause(stage: MigrationStage): Promise<void> {
    return this.deps.pause(stage);
  }

  private requireHandle(): AppendHandle {
    if (!this.handle) throw new AiZenError('session', `session ${this.id} is closed`);
    return this.handle;
  }

  private async write(line: SessionLine): Promise<void> {
    await this.requireHandle().write(serialize(line));
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => {});
    return result;
  }
}
