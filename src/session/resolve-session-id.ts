// `-r`/`-s` take any unique prefix of a session id, as git takes a commit's (issue 11 §15): `status`
// shows 8 characters, and those should be enough to name a session.
import { AiZenError } from '../errors.js';

/** The one id in `ids` that is `given` or starts with it; `given` itself when none does (the opener says why it cannot be opened); ambiguous → one clear line. */
export function resolveSessionId(given: string, ids: readonly string[]): string {
  if (ids.includes(given)) return given;
  const matches = given === '' ? [] : ids.filter((id) => id.startsWith(given));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) return given;
  const shown = matches.slice(0, 5).join(', ');
  const more = matches.length > 5 ? ` and ${matches.length - 5} more` : '';
  throw new AiZenError('session', `${JSON.stringify(given)} is ambiguous: it starts ${matches.length} session ids (${shown}${more})`);
}
