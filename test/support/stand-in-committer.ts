// A committer that knows no document and commits nothing: for SessionMonitor tests about what the
// monitor does after a crossing, where the commit path is not the subject.
import type { HandoffCommitter } from '../../src/daemon/committing/handoff-committer.js';

export function standInCommitter(): HandoffCommitter {
  return {
    add() {},
    has: () => false,
    retry() {},
    settled: async () => {},
    list: () => [],
    outcome: async () => null,
    close: async () => {},
  };
}
