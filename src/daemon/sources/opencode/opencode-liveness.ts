// Is an opencode session running? opencode holds no lock ai-zen can see, so on Linux it is read from
// /proc: a process running opencode (or kilo) whose working directory is the session's `directory`,
// and the session is the one of that directory opencode wrote to last — as pi's liveness is read
// (pi-liveness.ts). Without /proc (macOS) nothing is known: not live.
import { clientRunsIn } from '../kit/client-in-folder.js';

/** The client's program as its argv[0] names it: the binary (`opencode`, `kilo`, npm's `opencode.exe`). */
const CLIENT = /(?:^|\/)\.?(?:opencode|kilo)(?:\.exe)?$/;

export interface SessionPlace {
  /** The session's directory, and whether no session of that directory was written to after it; null: not known. */
  place(file: string): { readonly directory: string; readonly newest: boolean } | null;
}

export async function isOpencodeSessionLive(
  file: string,
  sessions: SessionPlace,
  proc = '/proc',
  except: readonly number[] = [],
): Promise<boolean> {
  const place = sessions.place(file);
  if (place === null || !place.newest) return false;
  // The program only: a hook ai-zen's plugin runs (`sh -c … hook opencode Stop`) is no opencode.
  return clientRunsIn(place.directory, (argv) => CLIENT.test(argv[0] ?? ''), proc, except);
}
