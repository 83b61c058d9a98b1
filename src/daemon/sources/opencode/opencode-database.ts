// opencode's database, opened read-only (`mode=ro`: no write, no checkpoint, never created) through
// libsql, loaded only once a database exists (a user without opencode never loads it). Each query is
// one statement in autocommit, so the read snapshot lasts as long as that query and opencode's writer
// is never waited on; a WAL-mode reader sees the WAL's committed pages before any checkpoint.
// Why libsql: it installs from the npm registry alone (the native part is an `@libsql/<platform>`
// package), loads on Node 20, 22 and 24 (node:sqlite needs 22.5), and reads the WAL in place — the
// WASM builds read a whole file into memory or cannot share a WAL. docs/agents.md has the numbers.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { kindOf, NotRegularFileError } from '../../../fs/open-regular-file.js';

/** The part of libsql's better-sqlite3-like API ai-zen uses. */
interface Statement {
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface Connection {
  prepare(sql: string): Statement;
  close(): void;
}
type ConnectionClass = new (path: string) => Connection;

let loaded: ConnectionClass | null = null;

function libsql(): ConnectionClass {
  loaded ??= createRequire(import.meta.url)('libsql') as ConnectionClass;
  return loaded;
}

export interface ReadOnlyDatabase {
  all(sql: string, ...params: unknown[]): Record<string, unknown>[];
  iterate(sql: string, ...params: unknown[]): IterableIterator<Record<string, unknown>>;
  close(): void;
}

/** Opens `file` read-only; throws when it cannot (missing, not a regular file, not a database). */
export function openReadOnly(file: string): ReadOnlyDatabase {
  // SQLite would open a FIFO and wait on it, on the daemon's one thread: only a regular file is opened.
  const stats = fs.statSync(file);
  if (!stats.isFile()) throw new NotRegularFileError(file, kindOf(stats));
  const connection = new (libsql())(`${pathToFileURL(file).href}?mode=ro`);
  const statements = new Map<string, Statement>();
  const statement = (sql: string): Statement => {
    let prepared = statements.get(sql);
    if (!prepared) statements.set(sql, (prepared = connection.prepare(sql)));
    return prepared;
  };
  return {
    all: (sql, ...params) => statement(sql).all(...params) as Record<string, unknown>[],
    iterate: (sql, ...params) => statement(sql).iterate(...params) as IterableIterator<Record<string, unknown>>,
    close: () => connection.close(),
  };
}
