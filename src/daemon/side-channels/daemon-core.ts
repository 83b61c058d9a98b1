// What the IPC handlers read and drive: the daemon's parts, as daemon.ts wires them.
import path from 'node:path';
import type { Config } from '../../config/load-config.js';
import type { ProjectPaths } from '../../paths.js';
import type { DaemonMigrator } from '../handoffs/daemon-migrator.js';
import type { ContinuedSessions } from '../handoffs/continued-sessions.js';
import type { FactsCache } from '../handoffs/facts-cache.js';
import type { ForeignSessionsRunner } from '../handoffs/foreign-sessions.js';
import type { HandoffCommitter } from '../committing/handoff-committer.js';
import type { SessionMonitor } from '../handoffs/session-monitor.js';
import type { WatchedSessions } from '../watching/transcript-watchers.js';
import type { UsageHistory } from '../watching/usage-history.js';

export interface DaemonCore {
  readonly root: string;
  readonly paths: ProjectPaths;
  /** The config in force (it follows the config files: process/config-keeper.ts). */
  readonly config: Config;
  /** One line when the config files say what the daemon does not apply (a restart needed, a file that does not parse). */
  readonly configNote?: () => string | null;
  readonly version: string;
  readonly startedAt: string;
  readonly socketPath: string;
  readonly logFile: string;
  readonly facts: FactsCache;
  readonly watcher: WatchedSessions;
  readonly monitor: SessionMonitor;
  readonly committer: HandoffCommitter;
  readonly migrator: DaemonMigrator;
  /** Another agent's sessions: a handoff by hand goes through the same runner as the automatic one. */
  readonly foreign: Pick<ForeignSessionsRunner, 'handOver' | 'actionFor' | 'idleOf'>;
  /** 21 §4: the document (and session) another agent's session was started from, and its successor. */
  readonly continued: ContinuedSessions;
  /** Each session's last readings (the sparkline of `ai-zen-daemon top`). */
  readonly usage?: Pick<UsageHistory, 'readings'>;
  readonly isOwned: (file: string) => Promise<boolean>;
  /** Whether isOwned can tell a session's process is gone (false: an agent with no sign of it). */
  readonly livenessKnown?: (file: string) => boolean;
  readonly ready: () => boolean;
  readonly requestStop: (reason: string) => void;
}

/** Project-relative, `/`-separated. */
export function relativeToRoot(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}
