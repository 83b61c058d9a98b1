// Who holds a session's lock: the lock tells whoever connects one line naming its
// holder, so a refused `ai-zen -c` can say "the daemon is migrating it" rather than pointing the
// person at an ai-zen process that does not exist. A leaf: only the line's format lives here.
import { z } from 'zod';
import { shortId } from '../short-id.js';

export type SessionHolderKind = 'ai-zen' | 'daemon';

const HolderLine = z.object({ kind: z.enum(['ai-zen', 'daemon']), pid: z.number().int().positive() });
export type SessionHolder = z.infer<typeof HolderLine>;

/** The line a process holding a session lock tells about itself. */
export function sessionHolderLine(kind: SessionHolderKind, pid: number = process.pid): string {
  return JSON.stringify({ kind, pid });
}

/** The holder a lock named, or null when it named nobody (an older ai-zen) or something unreadable. */
export function parseSessionHolder(line: string | null): SessionHolder | null {
  if (line === null) return null;
  try {
    const parsed = HolderLine.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The one line a process refused a session says, by who holds it. */
export function sessionHeldMessage(sessionId: string, holder: SessionHolder | null): string {
  const short = shortId(sessionId);
  if (holder?.kind === 'daemon') {
    return `session ${short} is being migrated by this repo's ai-zen daemon (pid ${holder.pid}) right now; when it is done, --continue carries on in the new session (ai-zen-daemon status shows it)`;
  }
  return `session ${short} is open in another ai-zen process${holder ? ` (pid ${holder.pid})` : ''}`;
}
