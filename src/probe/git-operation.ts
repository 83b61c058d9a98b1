// Which multi-step git operation is in progress, read from the markers git leaves in its
// (per-worktree) git dir. A commit made mid-operation would land inside the user's operation.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { GitOperation } from './facts.js';

export async function detectOperation(gitDir: string): Promise<GitOperation | null> {
  const exists = async (name: string): Promise<boolean> =>
    fs.access(path.join(gitDir, name)).then(
      () => true,
      () => false,
    );
  const [rebaseMerge, rebaseApply, applying, merge, cherryPick, revert, sequencerTodo] = await Promise.all([
    exists('rebase-merge'),
    exists('rebase-apply'),
    exists(path.join('rebase-apply', 'applying')),
    exists('MERGE_HEAD'),
    exists('CHERRY_PICK_HEAD'),
    exists('REVERT_HEAD'),
    fs.readFile(path.join(gitDir, 'sequencer', 'todo'), 'utf8').catch(() => null),
  ]);
  if (rebaseMerge) return 'rebase';
  if (rebaseApply) return applying ? 'am' : 'rebase';
  if (merge) return 'merge';
  if (cherryPick) return 'cherry-pick';
  if (revert) return 'revert';
  // Between the picks of a multi-commit cherry-pick or revert the *_HEAD marker is gone,
  // but the sequencer still has work queued.
  if (sequencerTodo !== null && sequencerTodo.trim().length > 0) {
    return /^\s*revert\s/.test(sequencerTodo) ? 'revert' : 'cherry-pick';
  }
  return null;
}
