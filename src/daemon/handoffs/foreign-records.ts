// What the daemon did for another agent's sessions, kept where a restart finds it. ai-zen's own
// sessions carry their `handoff` lines in their session files, and a restart reads them again;
// another agent's transcript is only ever read, so its handoff lines are kept here instead, one
// JSON line each: `began` when the daemon (or the agent, asked by its Stop hook) starts a document,
// `handoff` once the document is sealed, `told` once the person back at an idle session saw its
// choice. A `began` with no `handoff` after it is a handoff a kill -9 or a full disk cut short: the
// next start adopts its document or hands the session off again.
// Private to the user (`$AI_ZEN_HOME/handoff-records/<hash of the repo>.jsonl`), so nothing a
// cloned repo carries can plant a record.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { hashRealPath } from '../../lock/lock-names.js';
import { aiZenHome, type Env } from '../../paths.js';
import { ForkCost, HandoffTrigger } from '../../events.js';
import { HandoffChecks } from '../../session/format.js';
import type { HandoffSeen } from '../committing/handoff-committer.js';

const Began = z.object({
  type: z.literal('began'),
  at: z.string().max(64),
  transcript: z.string().max(4096),
  sessionId: z.string().max(256),
  agent: z.string().max(64),
  executor: z.string().max(32),
  /** The path the agent was asked to write (self); the daemon's own reserves its name after this line. */
  document: z.string().max(4096).nullable(),
  trigger: HandoffTrigger.optional(),
});

const Handoff = z.object({
  type: z.literal('handoff'),
  transcript: z.string().max(4096),
  path: z.string().max(4096),
  sessionId: z.string().max(256),
  executor: z.string().max(32),
  mode: z.string().max(32),
  at: z.string().max(64),
  agent: z.string().max(64),
  successorCommand: z.string().max(16_384),
  sha256: z.string().max(64).nullable(),
  redactions: z.number().int().nonnegative().nullable(),
  checks: HandoffChecks.optional(),
  downgrades: z.array(z.object({ from: z.string().max(32), reason: z.string().max(4096) })).optional(),
  trigger: HandoffTrigger.optional(),
  /** An idle handoff's stretch (the last reply it followed): a restart does not hand the same stretch off again. */
  idleStretch: z.string().max(512).optional(),
  /** The document's estimated tokens (an idle handoff's: what continuing fresh from it reads after a restart too). */
  documentTokens: z.number().int().nonnegative().optional(),
  /** Written by a fork of the session: what its own turn cost. */
  forkCost: ForkCost.optional(),
});

/** The person back at a session handed off while idle was shown the choice of this stretch: once, restarts included. */
const Told = z.object({
  type: z.literal('told'),
  at: z.string().max(64),
  transcript: z.string().max(4096),
  stretch: z.string().max(512),
});

const RecordLine = z.discriminatedUnion('type', [Began, Handoff, Told]);

export type BeganRecord = Omit<z.infer<typeof Began>, 'type'>;
/** A sealed document of another agent's session, as the committer takes it, and the transcript it was written for. */
export type HandoffRecordLine = Omit<z.infer<typeof Handoff>, 'type'> & HandoffSeen;

export type ToldRecord = Omit<z.infer<typeof Told>, 'type'>;

/** What a start finds: every sealed document, the handoffs begun and never finished, and each transcript's last stretch told. */
export interface FoundRecords {
  readonly handoffs: readonly HandoffRecordLine[];
  readonly unfinished: readonly BeganRecord[];
  readonly told: readonly ToldRecord[];
}

export interface ForeignRecords {
  read(): Promise<FoundRecords>;
  began(record: BeganRecord): Promise<void>;
  handoff(record: HandoffRecordLine): Promise<void>;
  told(record: ToldRecord): Promise<void>;
}

/** The file a repo's records are kept in. */
export function foreignRecordsFile(root: string, env: Env): string {
  return path.join(aiZenHome(env), 'handoff-records', `${hashRealPath(root, 24)}.jsonl`);
}

export function createForeignRecords(options: { readonly root: string; readonly env: Env; readonly logger: Logger }): ForeignRecords {
  const file = foreignRecordsFile(options.root, options.env);
  /** One append at a time, in the order they were asked. */
  let appending: Promise<void> = Promise.resolve();

  function append(line: z.infer<typeof RecordLine>): Promise<void> {
    appending = appending.then(async () => {
      try {
        await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        await fs.appendFile(file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      } catch (error) {
        // A full disk must not fail the handoff: the document and the committer still have it.
        options.logger.warn({ err: error, file }, 'could not keep the record of a handoff; a restart will not know it');
      }
    });
    return appending;
  }

  return {
    async read() {
      // What this process appended is read back too.
      await appending;
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      const handoffs = new Map<string, HandoffRecordLine>();
      const open = new Map<string, BeganRecord>();
      const told = new Map<string, ToldRecord>();
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          continue; // a line cut short by a kill or a full disk
        }
        const line = RecordLine.safeParse(parsed);
        if (!line.success) continue;
        if (line.data.type === 'began') {
          const { type: _began, ...record } = line.data;
          open.set(record.transcript, record);
        } else if (line.data.type === 'told') {
          const { type: _told, ...record } = line.data;
          told.set(record.transcript, record);
        } else {
          const { type: _handoff, ...record } = line.data;
          handoffs.set(record.path, record);
          open.delete(record.transcript);
        }
      }
      return { handoffs: [...handoffs.values()], unfinished: [...open.values()], told: [...told.values()] };
    },
    began: (record) => append({ type: 'began', ...record }),
    handoff: (record) => append({ type: 'handoff', ...record }),
    told: (record) => append({ type: 'told', ...record }),
  };
}
