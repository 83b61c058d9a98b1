// What starts a session's successor in another agent — the handoff document to start
// from, the first prompt (the document first, bounded), and the command line of each client.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { HandoffsReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError } from '../../errors.js';
import { readRegularFile } from '../../fs/read-regular-file.js';
import { projectPaths, type Env } from '../../paths.js';
import { SessionStore } from '../../session/store.js';
import { shortId } from '../../short-id.js';
import { quote } from 'shell-quote';
import { successorInstruction } from '../../daemon/sources/kit/successor.js';
import { requestDaemon } from '../shared/daemon-client.js';
import type { KnownSessions, NamedSession } from '../shared/other-agent-sessions.js';

/** A document up to this size is shown in the first prompt; a bigger one is named only (first steps print at most 16 KB). */
export const SHOWN_DOCUMENT_BYTES = 16 * 1024;

const DOC_NAME = /^\d{8}-\d{6}-([A-Za-z0-9][A-Za-z0-9_-]{0,7})(?:-(\d+))?\.md$/;

/** The latest handoff document of a session, project-relative; null when it has none. */
export async function latestDocument(root: string, env: Env, session: NamedSession, known: KnownSessions): Promise<string | null> {
  const paths = projectPaths(root);
  let named: string | null = null;
  if (session.agent === 'ai-zen') {
    const content = await new SessionStore(paths).read(session.id);
    named = content.lines.findLast((line) => line.type === 'handoff')?.path ?? null;
  } else if (known.daemonRunning) {
    const reply = await requestDaemon(root, env, 'handoffs', undefined, HandoffsReply);
    named =
      reply.handoffs
        .filter((record) => record.sessionId === session.id)
        .sort((a, b) => a.at.localeCompare(b.at))
        .at(-1)?.path ?? null;
  }
  if (named !== null) return named;
  if (session.agent === 'ai-zen') return null;
  // No daemon to ask: a document's name carries its session's short id, and sorts by its time.
  const folder = path.relative(root, paths.handoffs).split(path.sep).join('/');
  const short = shortId(session.id);
  const names = (await fs.readdir(paths.handoffs).catch(() => [] as string[])).filter((name) => DOC_NAME.exec(name)?.[1] === short);
  const latest = names.sort(byStampThenAttempt).at(-1);
  return latest === undefined ? null : `${folder}/${latest}`;
}

function byStampThenAttempt(a: string, b: string): number {
  const stamp = a.slice(0, 15).localeCompare(b.slice(0, 15));
  if (stamp !== 0) return stamp;
  return Number(DOC_NAME.exec(a)?.[2] ?? 1) - Number(DOC_NAME.exec(b)?.[2] ?? 1);
}

/** The document's text when it is small enough to show; null when it is only named. Missing → one clear line. */
export async function documentToShow(root: string, relative: string): Promise<string | null> {
  const read = await readRegularFile(path.join(root, relative), SHOWN_DOCUMENT_BYTES);
  if (read.ok) return read.bytes.toString('utf8');
  if (read.missing) throw new AiZenError('handoff', `the handoff document ${relative} is gone; write a new one`);
  return null;
}

/**
 * The successor's first prompt: the document named first ("handoff document" and its path are what
 * the daemon looks for to link the successor to its predecessor), then its text when it
 * is at most 16 KB.
 */
export function successorPrompt(relative: string, text: string | null): string {
  const instruction = successorInstruction(relative);
  if (text === null) return instruction;
  return `${instruction}\n\nIts text, as it is now:\n\n${text.trimEnd()}\n`;
}

/** The command line as a person would type it, quoted by shell-quote. */
export function commandLine(file: string, args: readonly string[]): string {
  return quote([file, ...args]);
}

/** `name` on PATH, as a shell would find it; null when it is not there. */
export async function onPath(name: string, env: Env): Promise<string | null> {
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, name);
    const ok = await fs.access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return candidate;
  }
  return null;
}
