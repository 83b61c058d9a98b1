// `ai-zen migrate --undo` reopens a migrated session. The archived predecessor becomes
// the latest again with its whole history; the successor is kept (nothing is deleted) but is no
// longer where `--continue` goes. The writes, in the order that leaves one live session at any kill
// point (as migration-write-sequence.ts does for the migration itself):
//   1. both session locks taken (a live process in either session is its owner: refused);
//   2. the latest pointer names the predecessor — alone this changes nothing, since `--continue`
//      follows a session's `migrated` line to its successor (open-session.ts latestSessionId);
//   3. a `reopened` line appended to the predecessor after its `migrated` line, and fsynced: the
//      commit point. From here the predecessor is open (its last line is no longer `migrated`).
// A kill between 2 and 3 leaves the migration as it was; undo again finishes it. The successor is
// still named by the old `migrated` line, so the orphan cleanup never takes it for debris.
import { AiZenError } from '../errors.js';
import type { HeldLock } from '../lock/os-lock.js';
import { AppendHandle } from './append-handle.js';
import { ReopenedLine, type SessionLine } from './format.js';
import { latestSessionId, type SessionDependencies, takeSessionLock } from './open-session.js';
import { resolveSessionId } from './resolve-session-id.js';
import { serializeLine, validated } from './session-lines.js';

export interface UndoneMigration {
  /** The predecessor, open and the latest again. */
  readonly reopenedId: string;
  /** The successor it had migrated to: kept, no longer the latest. */
  readonly successorId: string;
}

/** Thrown when `given` names no ai-zen session of this project: the caller may look at the other agents. */
export class NoSuchSessionError extends AiZenError {
  constructor(readonly given: string) {
    super('session', `no ai-zen session ${JSON.stringify(given)} in this project`);
  }
}

function lastMigrated(lines: readonly SessionLine[]): { newId: string } | null {
  const last = lines.at(-1);
  return last?.type === 'migrated' ? { newId: last.newId } : null;
}

/** Which migration to undo: of `given` (the migrated session or its successor), or the one that made the latest session. */
async function migrationToUndo(deps: SessionDependencies, given: string | undefined): Promise<{ oldId: string; newId: string }> {
  const { store } = deps;
  let id: string;
  if (given === undefined) {
    const latest = await latestSessionId(deps);
    if (latest === null) throw new AiZenError('session', 'no session in this project yet: nothing to undo');
    id = latest;
  } else {
    const ids = await store.list();
    id = resolveSessionId(given, ids);
    if (!ids.includes(id)) throw new NoSuchSessionError(given);
  }
  const content = await store.read(id);
  const own = lastMigrated(content.lines);
  if (own) return { oldId: id, newId: own.newId };
  const previousId = content.header.previousId;
  if (previousId !== null && (await store.exists(previousId))) {
    const previous = await store.read(previousId);
    if (lastMigrated(previous.lines)?.newId === id) return { oldId: previousId, newId: id };
  }
  throw new AiZenError(
    'session',
    given === undefined
      ? `the latest session ${id} was not made by a migration: nothing to undo`
      : `session ${id} was never migrated (nor made by a migration that is still in effect): nothing to undo`,
  );
}

/** Reopens the migrated session (see the top of this file for the order of the writes). */
export async function undoMigration(deps: SessionDependencies, given?: string): Promise<UndoneMigration> {
  const { store } = deps;
  const { oldId, newId } = await migrationToUndo(deps, given);
  const locks: HeldLock[] = [];
  try {
    locks.push(await takeSessionLock(store.sessionFile(newId), newId, deps));
    locks.push(await takeSessionLock(store.sessionFile(oldId), oldId, deps));
    // Read again under the locks: what was decided above may have changed since.
    const old = await store.read(oldId);
    if (lastMigrated(old.lines)?.newId !== newId) throw new AiZenError('session', `session ${oldId} changed while undoing; try again`);
    await store.writeLatestPointer({ id: oldId, previousId: old.header.previousId });
    await deps.pause('undo-after-pointer');
    const handle = await AppendHandle.open(deps.paths.root, store.sessionFile(oldId));
    try {
      // A torn last line must not swallow the commit point.
      const reopened = validated(ReopenedLine, { type: 'reopened', at: deps.now().toISOString(), from: newId }, 'reopened line');
      await handle.write(`${old.tornTail ? '\n' : ''}${serializeLine(reopened)}`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    deps.logger.info({ reopenedId: oldId, successorId: newId }, 'migration undone: the predecessor is the latest session again');
    return { reopenedId: oldId, successorId: newId };
  } finally {
    for (const lock of locks.reverse()) await lock.release().catch(() => {});
  }
}
