// The last step of every handoff before its `handoff` line is written, whoever wrote the document
// (T1, T5): make forged markup inert, scan it for secrets, redact them in the file itself, and record the sha256 of what is
// left. The daemon commits a document only while it still has that sha256, so what it commits is
// always a document that was verified and scanned — never one changed afterwards, never one
// ai-zen did not write.
import { NotRegularFileError, openRegularFile } from '../fs/open-regular-file.js';
import { createHash } from 'node:crypto';
import { writeFileInside } from '../fs/safe-write.js';
import { homeFolder } from '../paths.js';
import type { DocPath } from './doc-path.js';
import { neutraliseMarkup } from './forged-markup.js';
import { portableText } from './portable-paths.js';
import { redactFindings, scanForSecrets, type SecretScanner } from './secret-scan.js';

export interface SealedDocument {
  /** sha256 (hex) of the document as it now is on disk. */
  readonly sha256: string;
  /** How many secrets were replaced by `[redacted: <rule>]`. */
  readonly redactions: number;
  /** Which rules found them, for the log (never the secrets). */
  readonly rules: readonly string[];
}

export async function sealDocument(root: string, doc: DocPath, scan: SecretScanner = scanForSecrets): Promise<SealedDocument> {
  const original = await readRegularFile(doc.absolute);
  // A committed document names no path of this machine (the project's are relative, the home is `~`).
  // Markup that would pose as an agent's harness or as ai-zen's own frames is made inert: a later session reads this as a record.
  const text = neutraliseMarkup(portableText(original.toString('utf8'), { root, home: homeFolder() })).text;
  const findings = await scan(text);
  // Secrets redacted before the document was built (the offline executor scans the transcript's
  // texts first) count as much as those redacted now.
  const earlier = [...text.matchAll(REDACTION)].map((match) => match[1]!);
  if (findings.length === 0) {
    if (text === original.toString('utf8')) return { sha256: sha256Of(original), redactions: earlier.length, rules: [...new Set(earlier)] };
    const content = Buffer.from(text, 'utf8');
    await writeFileInside(root, doc.relative, content);
    return { sha256: sha256Of(content), redactions: earlier.length, rules: [...new Set(earlier)] };
  }
  const redacted = redactFindings(text, findings);
  const content = Buffer.from(redacted.text, 'utf8');
  await writeFileInside(root, doc.relative, content);
  return {
    sha256: sha256Of(content),
    redactions: earlier.length + redacted.redactions,
    rules: [...new Set([...earlier, ...findings.map((finding) => finding.rule)])],
  };
}

const REDACTION = /\[redacted: ([a-z0-9-]+)\]/g;

export function sha256Of(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The verified document, read without following a symlink put in its place. */
async function readRegularFile(file: string): Promise<Buffer> {
  // A FIFO put in its place is refused at once, never waited on (openRegularFile).
  const handle = await openRegularFile(file).catch((error: unknown) => {
    throw NotRegularFileError.isInstance(error) ? new Error('the document is not a regular file') : error;
  });
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
