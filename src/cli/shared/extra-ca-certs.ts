// The shim runs a lean entry (a hook, the statusline) with NODE_EXTRA_CA_CERTS kept aside: such a
// process makes no TLS connection, and Node parses the bundle at every start (~40 ms of CPU for a
// 220 KB one, more than the whole hook). What the entry starts (a daemon, a --chain command) gets it back.

/** Where the shim keeps NODE_EXTRA_CA_CERTS for a lean entry. */
export const EXTRA_CA_CERTS_ASIDE = 'AI_ZEN_EXTRA_CA_CERTS';

/** Puts NODE_EXTRA_CA_CERTS back in `env`, for every process started from here on. */
export function restoreExtraCaCerts(env: NodeJS.ProcessEnv = process.env): void {
  const aside = env[EXTRA_CA_CERTS_ASIDE];
  if (aside === undefined) return;
  delete env[EXTRA_CA_CERTS_ASIDE];
  env.NODE_EXTRA_CA_CERTS = aside;
}
