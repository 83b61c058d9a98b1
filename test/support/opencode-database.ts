// An opencode database written by a test, in opencode 1.x's schema (the tables and columns ai-zen
// reads: session, message, part), in WAL mode as opencode keeps it. A message is given as one JSON
// object: its `parts` become part rows, the rest its `data`. Written through libsql, in-process.
import { createRequire } from 'node:module';
import { promises as fs } from 'node:fs';
import path from 'node:path';

interface Writable {
  exec(sql: string): void;
  prepare(sql: string): { run(...params: unknown[]): unknown };
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE IF NOT EXISTS message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX IF NOT EXISTS message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE IF NOT EXISTS part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX IF NOT EXISTS part_message_id_id_idx ON part (message_id, id);`;

export interface TestSession {
  readonly id: string;
  readonly directory: string;
  readonly parentId?: string | null;
  /** Each message's JSON (a string as it is: junk too); an object's `parts` become its part rows. */
  readonly messages: readonly (string | Record<string, unknown>)[];
  /** Its first message's time; the next ones a second apart. */
  readonly at?: number;
}

/** Writes (or adds to) the database at `file`; the connection is closed after, its WAL left as SQLite leaves it. */
export async function writeOpencodeDatabase(file: string, sessions: readonly TestSession[]): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const Database = createRequire(import.meta.url)('libsql') as new (file: string) => Writable;
  const db = new Database(file);
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(SCHEMA);
    for (const session of sessions) addSession(db, session);
  } finally {
    db.close();
  }
}

/** Deletes a session's row and its messages and parts, as opencode's `session delete` does. */
export function deleteOpencodeSession(file: string, id: string): void {
  const Database = createRequire(import.meta.url)('libsql') as new (file: string) => Writable;
  const db = new Database(file);
  try {
    for (const table of ['part', 'message']) db.prepare(`DELETE FROM ${table} WHERE session_id = ?`).run(id);
    db.prepare('DELETE FROM session WHERE id = ?').run(id);
  } finally {
    db.close();
  }
}

/** A connection that stays open (as opencode's does): rows added through it, its WAL not checkpointed until close. */
export function openOpencodeWriter(file: string): { add(session: TestSession): void; close(): void } {
  const Database = createRequire(import.meta.url)('libsql') as new (file: string) => Writable;
  const db = new Database(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA wal_autocheckpoint = 0');
  db.exec(SCHEMA);
  return { add: (session) => addSession(db, session), close: () => db.close() };
}

function addSession(db: Writable, session: TestSession): void {
  const at = session.at ?? Date.UTC(2026, 11, 5, 10, 0, 0);
  const updated = at + session.messages.length * 1000;
  db.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
     VALUES (?, 'global', ?, 'slug', ?, 'title', '1.18.33', ?, ?)
     ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated`,
  ).run(session.id, session.parentId ?? null, session.directory, at, updated);
  session.messages.forEach((message, index) => {
    const id = `msg_${session.id.slice(4)}${String(index).padStart(4, '0')}`;
    const time = at + index * 1000;
    const { parts = [], ...data } = typeof message === 'string' ? { parts: [] } : (message as { parts?: unknown[] });
    db.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated',
    ).run(id, session.id, time, time, typeof message === 'string' ? message : JSON.stringify(data));
    (parts as unknown[]).forEach((part, partIndex) => {
      db.prepare(
        'INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(`prt_${id.slice(4)}${String(partIndex).padStart(3, '0')}`, id, session.id, time, time, JSON.stringify(part));
    });
  });
}
