// The migration's writes, in the ORDER that keeps history alive at any kill point (R24, R25):
// fsync the old file (it already holds the handoff turn) → write the new file atomically (header,
// definition messages, breakpoint) and take its lock → append `migrated` to the old file and fsync
// → switch the latest pointer. Until the `migrated` line is durable the old session stays the live
// one; after it, the successor is (openLatest follows it even if the pointer switch never
// happened). A test can pause at each step (pause-hook.ts) and kill the process there.
import { AiZenError } from '../errors.js';
import { writeFileInside } from '../fs/safe-write.js';
import type { HeldLock } from '../lock/os-lock.js';
import { AppendHandle } from './append-handle.js';
import { HeaderLine, type MessageLine, MigratedLine } from './format.js';
import { type OwnedSessionFile, type SessionDependencies, takeSessionLock } from './open-session.js';
import { serializeLine, validated } from './session-lines.js';
import { assertSessionId } from './session-id.js';

export interface MigrationWrite {
  /** The old session: its header (copied into the new one) and its open file. */
  readonly from: { readonly header: HeaderLine; readonly handle: AppendHandle };
  /** What the new session starts with: the definition messages and the breakpoint, validated. */
  readonly body: readonly MessageLine[];
  /** Project-relative path of the handoff document, named by the `migrated` line. */
  readonly docPath: string;
}

/** Writes the successor session and closes the old one by its `migrated` line; the new file comes back open and locked. */
export async function writeMigration(deps: SessionDependencies, write: MigrationWrite): Promise<OwnedSessionFile> {
  const { store, paths, logger } = deps;
  const oldId = write.from.header.id;
  const oldHandle = write.from.handle;
  await deps.pause('before-archive');
  await oldHandle.sync();
  await deps.pause('after-archive');

  const newId = assertSessionId(deps.newId());
  if (newId === oldId) throw new AiZenError('session', `new session id ${newId} equals the old one`);
  const header = validated(
    HeaderLine,
    { ...write.from.header, id: newId, createdAt: deps.now().toISOString(), previousId: oldId },
    'session header',
  );
  const newFile = store.sessionFile(newId);
  const content = [header, ...write.body].map(serializeLine).join('');
  try {
    await writeFileInside(paths.root, newFile, content, { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new AiZenError('session', `session ${newId} already exists`, { cause: error });
    throw error;
  }
  const handle = await AppendHandle.open(paths.root, newFile);
  // Ownership moves with the conversation: the new file is ours before the old one says it is closed.
  let lock: HeldLock;
  try {
    lock = await takeSessionLock(handle.file, newId, deps);
  } catch (error) {
    await handle.close();
    throw error;
  }
  await deps.pause('after-new-session');

  try {
    const migrated = validated(
      MigratedLine,
      { type: 'migrated', at: deps.now().toISOString(), newId, path: write.docPath },
      'migrated line',
    );
    await oldHandle.write(serializeLine(migrated));
    await oldHandle.sync();
  } catch (error) {
    await handle.close();
    await lock.release();
    throw error;
  }
  await deps.pause('after-migrated-line');

  // The migrated line is the commit point: a pointer that cannot be switched is repaired by
  // openLatest following that line, so this is logged rather than undoing the migration.
  try {
    await store.writeLatestPointer({ id: newId, previousId: oldId });
  } catch (error) {
    logger.error({ oldId, newId, error }, 'could not switch the latest-session pointer; --continue will follow the migrated line');
  }
  await deps.pause('after-pointer');
  return { header, handle, lock };
}
