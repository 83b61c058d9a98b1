// Verification (R22): the document really exists, inside the project, as a regular file of at
// least MIN_DOC_BYTES. Anything less is a failed attempt (retry once, then downgrade).
import fs from 'node:fs/promises';
import { resolveInsideRoot } from '../fs/confine.js';
import type { DocPath } from './doc-path.js';

export const MIN_DOC_BYTES = 400;

export type DocCheck =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly reason: string; readonly bytes: number };

export async function verifyDocument(root: string, doc: DocPath, minBytes = MIN_DOC_BYTES): Promise<DocCheck> {
  const resolved = await resolveInsideRoot(root, doc.relative);
  if (!resolved.ok) return { ok: false, reason: `the document path is not usable: ${resolved.reason}`, bytes: 0 };
  let stat;
  try {
    stat = await fs.lstat(resolved.absolute);
  } catch {
    return { ok: false, reason: 'the document was not written', bytes: 0 };
  }
  if (!stat.isFile()) return { ok: false, reason: 'the document is not a regular file', bytes: 0 };
  if (stat.size === 0) return { ok: false, reason: 'the document was not written', bytes: 0 };
  if (stat.size < minBytes)
    return { ok: false, reason: `the document is only ${stat.size} bytes (at least ${minBytes} needed)`, bytes: stat.size };
  return { ok: true, bytes: stat.size };
}
