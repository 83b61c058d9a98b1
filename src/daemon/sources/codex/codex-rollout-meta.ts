// Whose is a rollout? Its first line (`session_meta`) names the session's `cwd`. That line also
// carries Codex's whole base instructions (20 KB and more), so for the many rollouts of other
// repos only its first few KB are read: the payload's members are walked until `id` and `cwd` are
// found, and the rest of the line is never read or parsed.
import { readRegularHead } from '../../../fs/open-regular-file.js';
import { parseJsonLine } from '../../watching/line-fold-reader.js';
import { rolloutLineType } from './codex-rollout.js';

export type RolloutMetaResult = { readonly meta: { readonly id: string; readonly cwd: string } } | { readonly unreadable: string };

const FIRST_READ = 4096;
const MAX_READ = 1024 * 1024;
const ROLLOUT_NAME = /^rollout-.+\.jsonl$/;

export function isRolloutName(name: string): boolean {
  return ROLLOUT_NAME.test(name);
}

/** Reads just enough of the file's head to know its session id and cwd. */
export async function readRolloutMeta(file: string): Promise<RolloutMetaResult> {
  for (let size = FIRST_READ; ; size = Math.min(size * 8, MAX_READ)) {
    let head: Buffer;
    try {
      head = await readRegularHead(file, size);
    } catch (error) {
      return { unreadable: (error as NodeJS.ErrnoException).code ?? String(error) };
    }
    const result = metaFromHead(head.toString('utf8'));
    if (result !== 'more') return result;
    if (head.length < size) return { unreadable: head.length === 0 ? 'empty' : 'first line is incomplete' };
    if (size >= MAX_READ) return { unreadable: `no cwd in the first ${MAX_READ} bytes` };
  }
}

/** The session meta from the first bytes of a rollout; 'more' when they end before id and cwd. */
export function metaFromHead(head: string): RolloutMetaResult | 'more' {
  const type = rolloutLineType(head);
  if (type === null) return head.length < 160 && !head.includes('\n') ? 'more' : { unreadable: 'does not start with a rollout line' };
  if (type !== 'session_meta') return { unreadable: `first line is ${type}, not session_meta` };
  const start = head.indexOf('"payload":{');
  if (start < 0) return head.includes('\n') ? { unreadable: 'session_meta without a payload' } : 'more';
  const fields = memberStrings(head, start + '"payload":{'.length, ['id', 'cwd']);
  if (fields === 'more') return 'more';
  const id = fields.get('id');
  const cwd = fields.get('cwd');
  if (id === undefined || cwd === undefined) return { unreadable: 'session_meta without id and cwd' };
  return { meta: { id, cwd } };
}

/** A JSON token: a string (its inside), an opening or closing bracket, a colon or comma, or a number or literal. */
const TOKEN = /\s*(?:"([^"\\]*(?:\\.[^"\\]*)*)"|([[{])|([\]}])|([:,])|[^\s"[\]{}:,]+)/y;

/**
 * Walks an object's members from `at` (just inside its `{`) and returns the string values of
 * `wanted` keys, stopping once all are found or the object ends; 'more' when the text ends first.
 */
function memberStrings(text: string, at: number, wanted: readonly string[]): Map<string, string> | 'more' {
  const found = new Map<string, string>();
  let depth = 0; // inside a member's object or array value
  let key: string | null = null; // the member's key once read, until its value
  TOKEN.lastIndex = at;
  for (;;) {
    const token = TOKEN.exec(text);
    if (!token) return 'more';
    const [, string, open, close, punctuation] = token;
    if (depth > 0) depth += open ? 1 : close ? -1 : 0;
    else if (close) return found;
    else if (open) [depth, key] = [1, null];
    else if (punctuation === ',') key = null;
    else if (string !== undefined) {
      const value = parseJsonLine(`"${string}"`);
      if (typeof value !== 'string') return found;
      if (key === null) key = value;
      else if (wanted.includes(key)) found.set(key, value);
      if (wanted.every((name) => found.has(name))) return found;
    }
  }
}
