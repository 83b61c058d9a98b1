// A logger that remembers what it was told, so tests can assert that skipped lines are logged.
import type { SessionLogger } from '../../src/session/session-logger.js';

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly details: Record<string, unknown>;
  readonly message: string;
}

export function recordingLogger(): SessionLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const record = (level: LogEntry['level']) => (details: object, message: string) => {
    entries.push({ level, details: details as Record<string, unknown>, message });
  };
  return { entries, info: record('info'), warn: record('warn'), error: record('error') };
}
