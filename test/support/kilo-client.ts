// The real Kilo Code CLI (`@kilocode/cli`'s linux-x64 binary), run offline as opencode-like-client.ts
// runs opencode: Kilo is opencode under its own name, so its config is `~/.config/kilo/kilo.json`
// and its database `<data>/kilo/kilo.db`.
// Not a dependency of ai-zen: importing this module installs the pinned client on first use.
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';
import { FAKE_MODEL, makeClientHome, type OpencodeHome, type OpencodeLikeClient } from './opencode-like-client.js';

const pin = agentClientPin('kilo');
await ensureAgentClient(pin);
/** The `kilo` binary (what `@kilocode/cli`'s `kilo` runs on linux-x64). */
export const KILO_BIN = path.join(installedPackage(pin), 'bin', 'kilo');
export const KILO_MODEL = FAKE_MODEL;
/**
 * A turn of Kilo's takes over twice the CPU of opencode's (~8 s a `kilo run` here): on a loaded machine
 * its tests wait longer for it (a run, a turn) than opencode's do.
 */
export const KILO_RUN_MS = 180_000;
export const KILO_TEST_MS = 300_000;
const KILO: OpencodeLikeClient = { app: 'kilo', bin: KILO_BIN, runTimeoutMs: KILO_RUN_MS };

export type KiloHome = OpencodeHome;
export {
  answerTitles,
  clientEnv as kiloEnv,
  runClient as runKilo,
  startClientServer as startKiloServer,
} from './opencode-like-client.js';

/** A temp HOME whose global `kilo.json` points Kilo at the fake server, with the model's window. */
export function makeKiloHome(
  base: string,
  options: { readonly baseURL: string; readonly context: number; readonly output?: number },
): Promise<KiloHome> {
  return makeClientHome(KILO, base, options);
}
