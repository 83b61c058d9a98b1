// The real Kilo Code CLI (`@kilocode/cli`'s linux-x64 binary), run offline as opencode-like-client.ts
// runs opencode: Kilo is opencode under its own name, so its config is `~/.config/kilo/kilo.json`
// and its database `<data>/kilo/kilo.db`.
// Not a dependency of ai-zen: importing this module installs the pinned client on first use.
import path from 'node:path';
import { agentClientPin, ensureAgentClient, installedPackage } from './agent-clients.js';
import type { OpencodeLikeClient } from './opencode-like-client.js';

const pin = agentClientPin('kilo');
await ensureAgentClient(pin);
/** The `kilo` binary (what `@kilocode/cli`'s `kilo` runs on linux-x64). */
export const KILO_BIN = path.join(installedPackage(pin), 'bin', 'kilo');
/**
 * A turn of Kilo's takes over twice the CPU of opencode's (~8 s a `kilo run` here): on a loaded machine
 * its tests wait longer for it (a run, a turn) than opencode's do.
 */
export const KILO: OpencodeLikeClient = {
  app: 'kilo',
  name: 'Kilo Code',
  bin: KILO_BIN,
  runTimeoutMs: 180_000,
  testTimeoutMs: 300_000,
  // It sends a person's prompt with its own environment details after it, in a part of their own.
  typedIn: (promptText) => promptText.split('\n\n<environment_details>')[0]!,
};
