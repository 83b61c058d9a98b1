// A real pino logger (ai-zen's own configuration: redaction, error serializers) that writes to
// memory instead of a file, so a test asserts on the records a person would find in the log.
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createLogger } from '../../src/log/logger.js';

/** One log record as pino wrote it, its level given by name (`warn`) rather than number. */
export interface LogRecord {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface MemoryLogger {
  readonly logger: Logger;
  /** Every record written so far, oldest first (pino writes synchronously to this destination). */
  readonly records: LogRecord[];
  /** The same, as the JSON lines pino wrote (what `daemon.log` holds). */
  readonly lines: string[];
  /** The records of one level. */
  at(level: string): LogRecord[];
  /** Each record as `level message {fields}`, one a line, for a test that matches text. */
  text(): string;
}

/** A logger at `debug` (everything the code says) unless told otherwise. */
export function memoryLogger(options: { readonly level?: pino.Level } = {}): MemoryLogger {
  const records: LogRecord[] = [];
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        lines.push(line);
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push({ ...record, level: pino.levels.labels[Number(record.level)] ?? String(record.level), msg: String(record.msg ?? '') });
      }
      callback();
    },
  });
  const logger = createLogger({ name: 'test', destination, level: options.level ?? 'debug' });
  return {
    logger,
    records,
    lines,
    at: (level) => records.filter((record) => record.level === level),
    text: () => records.map((record) => `${record.level} ${record.msg} ${JSON.stringify(fieldsOf(record))}`).join('\n'),
  };
}

/** What the code logged beside its message: the record without what pino adds to every line. */
function fieldsOf(record: LogRecord): Record<string, unknown> {
  const { level: _level, msg: _msg, time: _time, pid: _pid, hostname: _hostname, name: _name, ...fields } = record;
  return fields;
}
