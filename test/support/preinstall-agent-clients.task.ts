// CI's head start (.ci/run runs this in the background while it builds and lints): every pinned
// real client in test/support/agent-clients/ installed into the cache before the tests ask for it.
// The same install as on first use (agent-clients.ts: one OS lock per client, whole or not at all),
// so a test that needs a client still being installed here waits for it, and a developer's
// `npm test` installs on demand as before. Run by vitest.clients.config.ts, never by `npm test`.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { ensureAgentClient, readPin } from './agent-clients.js';

const PINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'agent-clients');

test(
  'every pinned agent client is installed in the test cache',
  async () => {
    const folders = readdirSync(PINS, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.length).toBeGreaterThan(0);
    // One at a time: they share npm's cache and the machine is building meanwhile.
    for (const folder of folders) await ensureAgentClient(readPin(path.join(PINS, folder.name)));
  },
  60 * 60_000,
);
