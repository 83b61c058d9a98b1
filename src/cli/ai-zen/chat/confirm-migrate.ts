// R18: /migrate drops the history from the conversation (the old session stays on disk), so it asks.
import { confirm } from '@inquirer/prompts';
import type { SelectorIo } from './overflow-selector.js';

export const MIGRATE_QUESTION = 'Migrate? It writes a handoff document, clears the history and goes on in a new session';

/** Yes only on an explicit yes; Ctrl-C means no. */
export async function confirmMigrate(io: SelectorIo = {}): Promise<boolean> {
  try {
    return await confirm({ message: MIGRATE_QUESTION, default: false }, io);
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return false;
    throw error;
  }
}
