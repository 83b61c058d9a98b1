// The log: pino, to a file under `.ai-zen/logs/`. Nothing reaches the terminal unless the person
// asked for it (--verbose), so `ai-zen -p` keeps stdout for the answer alone. This folder makes
// loggers; their type is pino's `Logger`, imported from pino where it is used (ARCHITECTURE.md, "One logger type").
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';

/** Secrets never reach a log line, wherever they sit in the logged object (pino redact paths). */
export const REDACT_PATHS: readonly string[] = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'Authorization',
  '*.Authorization',
  'OPENAI_API_KEY',
  '*.OPENAI_API_KEY',
  '*.*.OPENAI_API_KEY',
];

export interface CreateLoggerOptions {
  /** Log file; its folder is created. Ignored when `destination` is given. */
  readonly file?: string;
  /** Also write to stderr. */
  readonly verbose?: boolean;
  /** Where `verbose` writes instead of the process's stderr (a command run in-process, with its own streams). */
  readonly verboseDestination?: pino.DestinationStream;
  readonly name: string;
  /** Where to write instead of `file` (the daemon's rotating file, a test's collector). */
  readonly destination?: pino.DestinationStream;
  readonly level?: pino.Level;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const streams: pino.StreamEntry[] = [];
  const level = options.level ?? 'info';
  if (options.destination) {
    streams.push({ level, stream: options.destination });
  } else if (options.file) {
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    // Synchronous: a CLI that exits right after an error must not lose the line that says why.
    streams.push({ level, stream: pino.destination({ dest: options.file, sync: true, mkdir: true }) });
  }
  if (options.verbose) streams.push({ level: 'debug', stream: options.verboseDestination ?? pino.destination({ dest: 2, sync: true }) });
  if (streams.length === 0) return silentLogger();
  return pino(
    {
      name: options.name,
      level: options.verbose ? 'debug' : level,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    pino.multistream(streams),
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
