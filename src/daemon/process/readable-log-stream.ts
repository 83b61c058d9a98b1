// Foreground logs for a person or a supervisor's journal (systemd, launchd): one readable line per
// pino record on stderr — `10:54:18.123 INFO  session overflowed sessionId=abcd… promptTokens=131000`,
// and `10:54:18.125 WARN  committer: handoff document not committed yet …` when a component spoke
// (its child logger's `component`). The JSON record still goes to the log file; this is only its face.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v', 'component']);

export function formatLogRecord(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[Number(record.level)] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  const speaker = typeof record.component === 'string' ? `${record.component}:` : '';
  return [time, level, speaker, String(record.msg ?? ''), ...fields].filter((part) => part !== '').join(' ');
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value !== null && typeof value === 'object' && 'message' in value && typeof (value as { message: unknown }).message === 'string') {
    // An error: its message is what a person reads; the stack stays in the log file.
    return JSON.stringify((value as { message: string }).message);
  }
  return JSON.stringify(value) ?? String(value);
}

/** A stream pino can write to (one JSON record per write) that prints readable lines to `target`. */
export function readableLogStream(target: NodeJS.WritableStream = process.stderr): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const text = chunk.toString();
      const lines = text.split('\n').filter((line) => line.length > 0);
      target.write(lines.map((line) => `${formatLogRecord(line)}\n`).join(''));
      callback();
    },
  });
}
