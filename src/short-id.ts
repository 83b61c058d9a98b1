// The short id a person sees for a session — in `status`, `sessions`, `handoffs`, notifications,
// commit messages (`handoff: <short> (…)`) and document names (`<YYYYMMDD-HHmmss>-<short>.md`) — in
// one place, so every one of them names the same session the same way.
//
// R3 says "the first 8 characters of the session id". That tells sessions apart when the id starts
// with random bits: ai-zen's and Claude Code's ids are UUIDv4. Codex's are UUIDv7, time-ordered: the
// first 12 hex digits are the creation time in ms, so the first 8 repeat for ~65 s and two sessions a
// minute apart showed the same 8 characters. The short id is therefore the id's first 8 characters
// unless the id is time-ordered — a UUID of version 6 or 7, a ULID (its first 10 characters are
// the time), Cline's `<ms since 1970>_<random>`, or opencode's (`ses_` and 12 hex digits of time,
// then 14 random characters) — whose last 8 characters (random bits) are taken instead. Still 8
// characters, still a part of the id a person can find in it.

/** The length of every short id. */
export const SHORT_ID_LENGTH = 8;

/** A UUID (any case) whose version digit says time-ordered, timestamp first (6 or 7), a ULID (Crockford base32), Cline's, or opencode's. */
const TIME_ORDERED =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[67][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}|[0-7][0-9A-HJKMNP-TV-Z]{25}|\d{13}_[0-9a-z_-]{5}|ses_[0-9a-f]{12}[0-9a-z]{14})$/i;

/** The 8 characters that name a session wherever a person reads it. */
export function shortId(sessionId: string): string {
  if (TIME_ORDERED.test(sessionId)) return sessionId.slice(-SHORT_ID_LENGTH);
  return sessionId.slice(0, SHORT_ID_LENGTH);
}

/** Whether `given` names this session: a prefix of its whole id or of its short id (what `status` prints). */
export function namesSession(given: string, sessionId: string): boolean {
  return given !== '' && (sessionId.startsWith(given) || shortId(sessionId).startsWith(given));
}
