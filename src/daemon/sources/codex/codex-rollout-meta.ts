// Whose is a rollout? Its first line (`session_meta`) names the session's `cwd`. That line also
// carries Codex's whole base instructions (20 KB and more), so for the many rollouts of other
// repos only its first few KB are read: the payload's keys are walked until `id` and `cwd` are
// found, and the rest of the line is never read or parsed.
import { openRegularFile } from '../../../fs/open-regular-file.js';
import type { promises as fs } from 'node:fs';
import { belongsToRepo } from '../../../probe/innermost-repo.js';
import { rolloutLineType } from './codex-rollout.js';

export interface RolloutMeta {
  readonly id: string;
  readonly cwd: string;
}

export type RolloutMetaResult = { readonly meta: RolloutMeta } | { readonly unreadable: string };

const FIRST_READ = 4096;
const MAX_READ = 1024 * 1024;
const ROLLOUT_NAME = /^rollout-.+\.jsonl$/;

export function isRolloutName(name: string): boolean {
  return ROLLOUT_NAME.test(name);
}

/** Reads just enough of the file's head to know its session id and cwd. */
export async function readRolloutMeta(file: string): Promise<RolloutMetaResult> {
  let handle: fs.FileHandle;
  try {
    handle = await openRegularFile(file);
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  try {
    let size = FIRST_READ;
    for (;;) {
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await handle.read(buffer, 0, size, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const result = metaFromHead(text);
      if (result !== 'more') return result;
      if (bytesRead < size) return { unreadable: bytesRead === 0 ? 'empty' : 'first line is incomplete' };
      if (size >= MAX_READ) return { unreadable: `no cwd in the first ${MAX_READ} bytes` };
      size = Math.min(size * 8, MAX_READ);
    }
  } finally {
    await handle.close();
  }
}

/** The session meta from the first bytes of a rollout; 'more' when they end before id and cwd. */
export function metaFromHead(head: string): RolloutMetaResult | 'more' {
  const type = rolloutLineType(head);
  if (type === null) return head.length < 160 && !head.includes('\n') ? 'more' : { unreadable: 'does not start with a rollout line' };
  if (type !== 'session_meta') return { unreadable: `first line is ${type}, not session_meta` };
  const start = head.indexOf('"payload":{');
  if (start < 0) return head.includes('\n') ? { unreadable: 'session_meta without a payload' } : 'more';
  const fields = topLevelStrings(head, start + '"payload":{'.length, ['id', 'cwd']);
  if (fields === 'more') return 'more';
  const id = fields.get('id');
  const cwd = fields.get('cwd');
  if (id === undefined || cwd === undefined) return { unreadable: 'session_meta without id and cwd' };
  return { meta: { id, cwd } };
}

/**
 * Walks an object's members from `at` (just inside its `{`) and returns the string values of
 * `wanted` keys, stopping once all are found or the object ends; 'more' when the text ends first.
 */
function topLevelStrings(text: string, at: number, wanted: readonly string[]): Map<string, string> | 'more' {
  const found = new Map<string, string>();
  let index = at;
  for (;;) {
    index = skipSpace(text, index);
    if (index >= text.length) return 'more';
    if (text[index] === '}') return found;
    if (text[index] === ',') {
      index += 1;
      continue;
    }
    const key = readString(text, index);
    if (key === 'more' || key === null) return key === null ? found : 'more';
    index = skipSpace(text, key.end);
    if (index >= text.length) return 'more';
    if (text[index] !== ':') return found;
    index = skipSpace(text, index + 1);
    if (index >= text.length) return 'more';
    if (text[index] === '"') {
      const value = readString(text, index);
      if (value === 'more') return 'more';
      if (value === null) return found;
      if (wanted.includes(key.value)) found.set(key.value, value.value);
      index = value.end;
    } else {
      const end = skipValue(text, index);
      if (end === 'more') return 'more';
      index = end;
    }
    if (wanted.every((name) => found.has(name))) return found;
  }
}

function skipSpace(text: string, index: number): number {
  while (index < text.length && /\s/.test(text[index]!)) index += 1;
  return index;
}

/** A JSON string literal at `index`: its value and the index after it. */
function readString(text: string, index: number): { value: string; end: number } | 'more' | null {
  if (text[index] !== '"') return null;
  let end = index + 1;
  while (end < text.length) {
    const char = text[end];
    if (char === '\\') end += 2;
    else if (char === '"') {
      try {
        return { value: JSON.parse(text.slice(index, end + 1)) as string, end: end + 1 };
      } catch {
        return null;
      }
    } else end += 1;
  }
  return 'more';
}

/** Skips a number, literal, object or array (strings inside included). */
function skipValue(text: string, index: number): number | 'more' {
  let depth = 0;
  let end = index;
  while (end < text.length) {
    const char = text[end]!;
    if (char === '"') {
      const string = readString(text, end);
      if (string === 'more') return 'more';
      if (string === null) return end;
      end = string.end;
      continue;
    }
    if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      if (depth === 0) return end;
      depth -= 1;
      if (depth === 0) return end + 1;
    } else if (char === ',' && depth === 0) return end;
    end += 1;
  }
  return 'more';
}

/** Whether a session that ran in `cwd` belongs to the repo at `root` (the root or a folder inside it, not a repo nested in it). */
export function isInsideRepo(root: string, cwd: string): boolean {
  return belongsToRepo(root, cwd);
}
