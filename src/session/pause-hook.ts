// A test-only pause in the middle of a migration, so a test can `kill -9` the process at an
// exact point and prove no history is lost. Unused unless a test asks for it.
import { promises as fs } from 'node:fs';
import type { Env } from '../paths.js';

/**
 * The points of a migration's writes (`migration-write-sequence.ts`, run by `ConversationContext.migrate()`), in order:
 * - `before-archive`: nothing done yet; the old file may still have unsynced appends.
 * - `after-archive`: the old file (with the handoff turn) is fsynced; nothing else changed.
 * - `after-new-session`: the new session file exists whole (atomic), the old one is not yet closed.
 * - `after-migrated-line`: the old file ends with its `migrated` line, fsynced; the pointer is old.
 * - `after-pointer`: the latest pointer names the new session; the context has not switched yet.
 */
export const MIGRATION_STAGES = ['before-archive', 'after-archive', 'after-new-session', 'after-migrated-line', 'after-pointer'] as const;
export type MigrationStage = (typeof MIGRATION_STAGES)[number];

/**
 * Before the migration's writes, in the handoff (migration-service.ts):
 * - `after-document`: the document is written by its executor, not yet sealed nor named by a `handoff` line.
 */
export const HANDOFF_STAGES = ['after-document'] as const;
export type HandoffStage = (typeof HANDOFF_STAGES)[number];

/**
 * Undoing a migration (undo-migration.ts):
 * - `undo-after-pointer`: the latest pointer names the predecessor, whose `reopened` line is not written yet.
 */
export const UNDO_STAGES = ['undo-after-pointer'] as const;
export type UndoStage = (typeof UNDO_STAGES)[number];

export type PauseHook = (stage: MigrationStage | HandoffStage | UndoStage) => Promise<void>;

/**
 * `AI_ZEN_TEST_PAUSE_AT=<stage>`: on reaching that stage, write its name to
 * `AI_ZEN_TEST_PAUSE_FILE` (when set) and wait forever — the test kills the process.
 */
export function pauseHookFromEnv(env: Env): PauseHook | undefined {
  const pauseAt = env.AI_ZEN_TEST_PAUSE_AT;
  if (!pauseAt) return undefined;
  const signalFile = env.AI_ZEN_TEST_PAUSE_FILE;
  return async (stage) => {
    if (stage !== pauseAt) return;
    if (signalFile) await fs.writeFile(signalFile, stage);
    // A pending promise alone would let Node exit; a timer keeps the process alive until killed.
    setInterval(() => {}, 1 << 30);
    await new Promise<never>(() => {});
  };
}
