// One line of a session file → a validated SessionLine, or why not. Readers skip what fails
// and log it (SPEC: never crash on a line you cannot parse or do not know).
import { compiledOnFirstUse } from '../compiled-schema.js';
import { SessionLine } from './format.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

export type ParsedLine = { ok: true; line: SessionLine } | { ok: false; reason: string };

const compiledSessionLine = compiledOnFirstUse(SessionLine);

const KNOWN_TYPES = new Set(['session', 'message', 'usage', 'handoff', 'migrated', 'skip', 'reopened']);

export function parseSessionLine(text: string): ParsedLine {
  if (nestsDeeperThan(text)) return { ok: false, reason: `nested more than ${MAX_JSON_DEPTH} levels deep` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, reason: 'no line type' };
  if (!KNOWN_TYPES.has(type)) return { ok: false, reason: `unknown line type ${type.slice(0, 40)}` };
  const parsed = compiledSessionLine().safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return { ok: false, reason: `invalid ${type} line${where}: ${issue?.message ?? 'does not match the schema'}` };
  }
  return { ok: true, line: parsed.data };
}
