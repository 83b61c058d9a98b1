// A logger that remembers what it was told, so a test can assert the log says why.
import type { HandoffLogger } from '../../src/handoff/handoff-logger.js';

export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly details: object;
  readonly message: string;
}

export function recordingLogger(): HandoffLogger & { entries: LogEntry[]; text(): string } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (details: object, message: string) => void entries.push({ level, details, message });
  return {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => entries.map((entry) => `${entry.level} ${entry.message} ${JSON.stringify(entry.details)}`).join('\n'),
  };
}
