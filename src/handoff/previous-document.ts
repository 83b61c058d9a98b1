// A chain of sessions. A successor started from a handoff document (the command the
// daemon announced: "Read .ai-zen/handoffs/….md …") is the continuation of that document's session:
// its own document names the previous one as such — not as something the user asked — and keeps
// the rules the user stated before (the previous document's ⚠️), unless the user revoked one since.
import { NotRegularFileError, openRegularFile } from '../fs/open-regular-file.js';
import path from 'node:path';
import type { AgentMessage } from '../session/session-recorder.js';
import { significantWords } from './checks/constraints-check.js';
import { documentSections } from './checks/document-sections.js';
import { portablePath } from './portable-paths.js';
import { isHandoffInstruction, messageText } from './transcript.js';

/** A handoff document's project-relative path as a successor command names it (or the absolute one it was given). */
const DOCUMENT_PATH = /(?:\/[^\s"'`()<>]*?\/)?(\.ai-zen\/handoffs\/[A-Za-z0-9._-]+\.md)/;

/** The most a previous document read for its rules may be: a bigger one is not a document ai-zen wrote. */
const MAX_PREVIOUS_BYTES = 512 * 1024;

export interface PreviousDocument {
  /** Project-relative, e.g. `.ai-zen/handoffs/20261203-…md`. */
  readonly path: string;
  /** The rules its ⚠️ section carried, in their words. */
  readonly rules: readonly string[];
}

/** Whether a user message is the instruction that starts a successor from a document, and which. */
export function continuedDocument(text: string): string | null {
  if (!/handoff document/i.test(text)) return null;
  return DOCUMENT_PATH.exec(text)?.[1] ?? null;
}

/** The document this session was started from: its first real user request names it. */
export function previousDocumentPath(messages: readonly AgentMessage[]): string | null {
  const first = messages.find((entry) => !entry.definition && entry.message.role === 'user' && !isHandoffInstruction(entry.message));
  return first ? continuedDocument(messageText(first.message)) : null;
}

/** The rules under a document's ⚠️ heading: its quoted lines and list items, each once. */
export function rulesOfDocument(document: string): string[] {
  const section = documentSections(document).find((entry) => entry.heading.includes('⚠️') || /constraint|约束/i.test(entry.heading));
  if (!section) return [];
  const rules: string[] = [];
  let quoted: string[] = [];
  const flush = () => {
    const rule = quoted.join(' ').trim();
    if (rule.length > 0 && !rules.includes(rule)) rules.push(rule);
    quoted = [];
  };
  for (const line of section.body.split('\n')) {
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      if (quote[1]!.trim() === '') flush();
      else quoted.push(quote[1]!.trim());
      continue;
    }
    flush();
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/.exec(line)?.[1]?.trim();
    if (item && !/^none\b/i.test(item) && !rules.includes(item)) rules.push(item);
  }
  flush();
  return rules;
}

/** Reads the previous document for its rules; null when it is not a handoff document of this project (or gone). */
export async function readPreviousDocument(root: string, messages: readonly AgentMessage[]): Promise<PreviousDocument | null> {
  const named = previousDocumentPath(messages);
  if (named === null) return null;
  // The path comes from a transcript: only a plain file in this project's handoff folder is read.
  const relative = portablePath(path.posix.normalize(named), { root, home: null });
  if (!relative.startsWith('.ai-zen/handoffs/') || relative.includes('/../')) return null;
  try {
    const handle = await openRegularFile(path.join(root, relative)).catch((error: unknown) => {
      // A FIFO or a folder is no document; a symlink is refused as before (below).
      if (NotRegularFileError.isInstance(error) && error.what !== 'a symbolic link') return null;
      throw error;
    });
    if (handle === null) return null;
    try {
      const stat = await handle.stat();
      if (stat.size > MAX_PREVIOUS_BYTES) return null;
      return { path: relative, rules: rulesOfDocument(await handle.readFile('utf8')) };
    } finally {
      await handle.close();
    }
  } catch {
    return { path: relative, rules: [] };
  }
}

/** Words that take a rule back ("you may add dependencies now", "forget the rule about …", "ignore that"). */
const REVOKING =
  /(?<!\p{L})(no longer|not any more|anymore|you may now|you can now|may now|can now|now you may|now you can|revoke[sd]?|lift(?:ed)?|drop the rule|forget (?:the|that|about)|ignore (?:the|that) rule|is fine now|are fine now|allowed now|is ok now|go ahead and)(?!\p{L})/iu;

/** A later request of the user takes this rule back: it says so and is about the same things. */
export function isRevoked(rule: string, laterRequests: readonly string[]): boolean {
  const words = significantWords(rule);
  if (words.length === 0) return false;
  return laterRequests.some((request) =>
    request
      .split(/\n+|(?<=[.!?])\s+/u)
      .some(
        (sentence) =>
          REVOKING.test(sentence) && significantWords(sentence).filter((word) => words.includes(word)).length >= Math.min(2, words.length),
      ),
  );
}
