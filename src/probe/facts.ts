// Facts about the real state of the project, captured by code (X2, D2), never recalled by a model.
// A probe that fails says why; it never fails the handoff.

export type Known<T> = { readonly known: true; readonly value: T } | { readonly known: false; readonly why: string };

export type GitOperation = 'merge' | 'rebase' | 'cherry-pick' | 'revert' | 'am';

export interface GitFacts {
  /** null when HEAD is detached. */
  readonly branch: string | null;
  /** null when the repo has no commits yet. */
  readonly head: { readonly sha: string; readonly shortSha: string; readonly subject: string } | null;
  readonly staged: readonly string[];
  readonly unstaged: readonly string[];
  readonly untracked: readonly string[];
  /** Paths with unresolved merge conflicts (optional, added after the first version of this contract). */
  readonly conflicted?: readonly string[];
  readonly upstream: string | null;
  readonly ahead: number | null;
  /** Of the commits ahead, how many only add handoff documents (ai-zen's own commits): not the user's work. */
  readonly aheadHandoffCommits?: number;
  readonly behind: number | null;
  /** A merge, rebase, cherry-pick, revert or `git am` in progress (`am` added later). */
  readonly operation: GitOperation | null;
}

export interface PortFact {
  readonly pid: number;
  readonly command: string;
  readonly port: number;
  readonly address: string;
}

export interface Facts {
  readonly capturedAt: string;
  readonly root: string;
  readonly git: Known<GitFacts>;
  readonly ports: Known<readonly PortFact[]>;
}

export interface FactsProvider {
  capture(): Promise<Facts>;
}
