// Which of an agent's files or folders are this repo's, when every repo's sessions share one folder
// (Codex's rollouts by day, Copilot's session folders): each one's owner is decided once, from a
// small read of its head, and kept — another repo's transcript is never opened. Asks at once share
// the one read; one that cannot be decided yet (the client is still writing it) is asked again.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { mapLimited } from '../../../map-limited.js';

/** Heads read at once while listing. */
const READS_AT_ONCE = 8;

export class Owners {
  private readonly owners = new Map<string, boolean>();
  private readonly deciding = new Map<string, Promise<boolean | null>>();
  readonly counters = { reads: 0 };

  /** `read` says whose `key` is: true this repo's, false not (or no session at all), null not decidable yet. */
  constructor(private readonly read: (key: string) => Promise<boolean | null>) {}

  known(key: string): boolean | undefined {
    return this.owners.get(key);
  }

  decide(key: string): Promise<boolean | null> {
    const known = this.owners.get(key);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.deciding.get(key);
    if (!pending) {
      this.counters.reads += 1;
      // A read that fails is this key's failure, never the listing's: not a session of this repo.
      pending = this.read(key)
        .catch(() => false)
        .then((own) => {
          this.deciding.delete(key);
          if (own !== null) this.owners.set(key, own);
          return own;
        });
      this.deciding.set(key, pending);
    }
    return pending;
  }

  /** Decides those of `keys` not decided yet, a few at a time. */
  async decideAll(keys: readonly string[]): Promise<void> {
    await mapLimited(
      keys.filter((key) => !this.owners.has(key)),
      READS_AT_ONCE,
      (key) => this.decide(key),
    );
  }

  /** The keys decided to be this repo's. */
  owned(): string[] {
    return [...this.owners].filter(([, own]) => own).map(([key]) => key);
  }
}

/** The sub-folders of `folder` whose names match, sorted; none when it cannot be listed. */
export async function subfolders(folder: string, pattern: RegExp): Promise<string[]> {
  const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
    .map((entry) => path.join(folder, entry.name))
    .sort();
}
