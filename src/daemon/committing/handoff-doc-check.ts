// What the committer asks of a document before it commits it (T1): a `handoff` line is a claim
// made by whoever could write a session file — a cloned repo, another program, a model with a
// write tool — so the line alone is never enough. Only a document that ai-zen itself named, wrote
// and sealed is committed, and only the very bytes it sealed:
// - the path is `.ai-zen/handoffs/<YYYYMMDD-HHmmss>-<short>[-n].md`, exactly, with the short id
//   (src/short-id.ts) of the session whose FILE NAME holds the line (T2), reached through no
//   symlink; a document named by the id's first 8 characters — the rule before ids were shortened one way everywhere, which
//   differs only for time-ordered ids — is still that session's, so documents written then still commit;
// - it is a regular file, and its sha256 is the one the line records — computed by ai-zen after the
//   document was verified and scanned for secrets (src/handoff/seal-document.ts), so a document
//   changed afterwards, or one never scanned, does not match.
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveInsideRoot } from '../../fs/confine.js';
import { SHORT_ID_LENGTH, shortId } from '../../short-id.js';

export const HANDOFF_DOC_PATH = /^\.ai-zen\/handoffs\/\d{8}-\d{6}-([A-Za-z0-9_-]{8})(?:-[1-9]\d{0,3})?\.md$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** A handoff document is a few KB; anything this big is not one of ours. */
export const MAX_DOC_BYTES = 4 * 1024 * 1024;

export interface DocumentClaim {
  /** Project-relative path, as the `handoff` line says. */
  readonly path: string;
  /** The session whose file holds the line: its file name, never its header. */
  readonly sessionId: string;
  readonly sha256?: string | null;
}

export type DocumentCheck = { readonly ok: true; readonly content: Buffer } | { readonly ok: false; readonly reason: string };

/** Whether the path can name a document of this session at all (null: it can). */
export function pathProblem(claim: Pick<DocumentClaim, 'path' | 'sessionId'>): string | null {
  const name = HANDOFF_DOC_PATH.exec(claim.path);
  if (!name) return `${claim.path} is not a handoff document path (.ai-zen/handoffs/<YYYYMMDD-HHmmss>-<short id>.md)`;
  if (name[1] !== shortId(claim.sessionId) && name[1] !== claim.sessionId.slice(0, SHORT_ID_LENGTH))
    return `${claim.path} is not a document of session ${shortId(claim.sessionId)}, whose file holds the line`;
  return null;
}

/** What is wrong with the claim itself, before any file is read (null: nothing). */
export function claimProblem(claim: DocumentClaim): string | null {
  const problem = pathProblem(claim);
  if (problem !== null) return problem;
  if (!claim.sha256 || !SHA256.test(claim.sha256))
    return `the handoff line of ${claim.path} records no sha256: ai-zen did not seal this document`;
  return null;
}

export async function checkHandoffDocument(root: string, claim: DocumentClaim): Promise<DocumentCheck> {
  const refused = (why: string): DocumentCheck => ({ ok: false, reason: `refused: ${why}` });
  const problem = claimProblem(claim);
  if (problem !== null) return refused(problem);

  const resolved = await resolveInsideRoot(root, claim.path);
  if (!resolved.ok) return refused(resolved.reason);
  const realRoot = await fs.realpath(root);
  if (resolved.absolute !== path.join(realRoot, ...claim.path.split('/')))
    return refused(`${claim.path} is reached through a symbolic link`);

  let handle: fs.FileHandle;
  try {
    // O_NOFOLLOW: a symlink put in its place after the check above is refused, not followed.
    handle = await fs.open(resolved.absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return refused(`the handoff document ${claim.path} does not exist`);
    if (code === 'ELOOP') return refused(`${claim.path} is a symbolic link`);
    return refused(`cannot open ${claim.path} (${code ?? String(error)})`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return refused(`${claim.path} is not a regular file`);
    if (stats.size > MAX_DOC_BYTES) return refused(`${claim.path} is ${stats.size} bytes, more than a handoff document can be`);
    const content = await handle.readFile();
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (sha256 !== claim.sha256)
      return refused(`${claim.path} changed after ai-zen verified it (its sha256 is not the one the handoff line records)`);
    return { ok: true, content };
  } finally {
    await handle.close();
  }
}
