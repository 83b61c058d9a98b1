// An opencode database of other repos' sessions for the idle benchmark: the schema opencode 1.18.33
// gives a new opencode.db (bench/fixtures/opencode-1.18.33-schema.sql, dumped from the real client's),
// in WAL mode, filled through libsql with sessions shaped as opencode writes them: a session row, its
// messages (a user prompt, an assistant step with its tokens) and their parts (text, a tool call with
// its output: where opencode's bytes go). The last sessions are written through a connection the caller
// keeps open with its WAL not checkpointed, as an opencode running in another repo keeps it.
import { createRequire } from 'node:module';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../dist/paths.js';

interface Writable {
  exec(sql: string): void;
  prepare(sql: string): { run(...params: unknown[]): unknown };
  close(): void;
}
type Connection = new (file: string) => Writable;

const connection = (): Connection => createRequire(import.meta.url)('libsql') as Connection;
const SCHEMA = path.join(packageRoot(), 'bench', 'fixtures', 'opencode-1.18.33-schema.sql');
const MESSAGES_PER_SESSION = 20;
/** Sessions written through the connection left open: a few MB of WAL. */
const IN_WAL = 10;

export interface OpencodeDatabaseSize {
  readonly sessions: number;
  readonly bytes: number;
  readonly walBytes: number;
}

/** The tables alone, as opencode leaves them on its first start: what loading and opening the reader costs. */
export async function writeEmptyOpencodeDatabase(file: string): Promise<void> {
  const db = await createDatabase(file);
  db.close();
}

/**
 * About `megabytes` in `sessions` sessions of 500 other repos (`/home/someone/other-repo-<n>`). Returns
 * the writer still open: close it once the measurement is done.
 */
export async function writeOpencodeDatabase(
  file: string,
  options: { readonly megabytes: number; readonly sessions: number },
): Promise<{ size: OpencodeDatabaseSize; close(): void }> {
  // Each assistant step's tool output takes what is left of a session's share once the rest (the
  // other rows, the pages' own room: ~3.7 KB a user prompt and its reply, measured) is counted.
  const perSession = (options.megabytes * 1024 * 1024) / options.sessions;
  const outputBytes = Math.max(100, Math.round(perSession / (MESSAGES_PER_SESSION / 2) - 3700));
  const bulk = await createDatabase(file);
  try {
    bulk.exec('BEGIN');
    for (let index = 0; index < options.sessions - IN_WAL; index += 1) addSession(bulk, index, outputBytes);
    bulk.exec('COMMIT');
    // Into the database file, the WAL emptied: what the open connection writes next is all it holds.
    bulk.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    bulk.close();
  }
  const open = new (connection())(file);
  open.exec('PRAGMA wal_autocheckpoint = 0');
  for (let index = options.sessions - IN_WAL; index < options.sessions; index += 1) addSession(open, index, outputBytes);
  const bytes = (await fs.stat(file)).size;
  const walBytes = (await fs.stat(`${file}-wal`).catch(() => null))?.size ?? 0;
  return { size: { sessions: options.sessions, bytes: bytes + walBytes, walBytes }, close: () => open.close() };
}

async function createDatabase(file: string): Promise<Writable> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const db = new (connection())(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(await fs.readFile(SCHEMA, 'utf8'));
  return db;
}

const id = (prefix: string, ...numbers: number[]) => `${prefix}_${numbers.map((n) => n.toString(36).padStart(6, '0')).join('')}`;

function addSession(db: Writable, index: number, outputBytes: number): void {
  const directory = `/home/someone/other-repo-${index % 500}`;
  const session = id('ses', index);
  const project = id('prj', index % 500);
  const created = Date.UTC(2026, 10, 1) + index * 60_000;
  const updated = created + MESSAGES_PER_SESSION * 1000;
  db.prepare(
    `INSERT OR IGNORE INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, ?, '[]')`,
  ).run(project, directory, `other-repo-${index % 500}`, created, updated);
  db.prepare(
    `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
     VALUES (?, ?, ?, ?, ?, '1.18.33', ?, ?)`,
  ).run(session, project, `session-${index}`, directory, `Work on other repo ${index}`, created, updated);
  const message = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)');
  const part = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
  let parent = '';
  for (let step = 0; step < MESSAGES_PER_SESSION; step += 1) {
    const messageId = id('msg', index, step);
    const at = created + step * 1000;
    const parts: object[] = [];
    let data: object;
    if (step % 2 === 0) {
      data = { role: 'user', time: { created: at }, agent: 'build', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } };
      parts.push({ type: 'text', text: `Look at src/module-${step}.ts and fix the failing test there. `.repeat(4) });
    } else {
      const tokens = { input: 2_000 + step * 100, output: 400, reasoning: 0, cache: { read: 20_000 + step * 4_000, write: 1_000 } };
      data = {
        role: 'assistant',
        time: { created: at, completed: at + 900 },
        parentID: parent,
        modelID: 'claude-sonnet-4-5',
        providerID: 'anthropic',
        mode: 'build',
        agent: 'build',
        path: { cwd: directory, root: directory },
        cost: 0.01,
        tokens,
        finish: 'stop',
      };
      // Outputs from a fifth of the mean to 1.8 times it, as commands' outputs vary.
      const bytes = Math.round(outputBytes * (0.2 + (1.6 * ((index * 31 + step * 17) % 100)) / 99));
      const output = `ok ${'x'.repeat(79)}\n`.repeat(Math.ceil(bytes / 83)).slice(0, bytes);
      parts.push(
        { type: 'step-start' },
        {
          type: 'tool',
          callID: `call_${index}_${step}`,
          tool: 'bash',
          state: {
            status: 'completed',
            input: { command: 'npm test', description: 'Run the tests' },
            output,
            title: 'npm test',
            metadata: { exit: 0 },
            time: { start: at + 100, end: at + 800 },
          },
        },
        { type: 'text', text: 'The test passes now: the module read its input before it was ready.' },
        { type: 'step-finish', reason: 'stop', tokens, cost: 0.01 },
      );
    }
    message.run(messageId, session, at, at, JSON.stringify(data));
    for (const [partIndex, body] of parts.entries())
      part.run(id('prt', index, step, partIndex), messageId, session, at, at, JSON.stringify(body));
    parent = messageId;
  }
}
