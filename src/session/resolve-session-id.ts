// `-r`/`-s` and `ai-zen-daemon handoff` take any unique prefix of a session id, as git takes a
// commit's, or of its short id — the 8 characters `status` shows (src/short-id.ts:
// for a time-ordered id they are its last 8).
import { AiZenError } from '../errors.js';
import { namesSession } from '../short-id.js';

/** The one id in `ids` that is `given` or that it names (namesSession); `given` itself when none does (the opener says why it cannot be opened); ambiguous → one clear line. */
export function resolveSessionId(given: string, ids: readonly string[]): string {
  if (ids.includes(given)) return given;
  const matches = given === '' ? [] : ids.filter((id) => namesSession(given, id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) return given;
  const shown = matches.slice(0, 5).join(', ');
  const more = matches.length > 5 ? ` and ${matches.length - 5} more` : '';
  throw new AiZenError('session', `${JSON.stringify(given)} is ambiguous: it names ${matches.length} sessions (${shown}${more})`);
}
