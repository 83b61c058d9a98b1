// Plugins compose in order. A refusal is a returned reason (the first one wins); a plugin that
// throws is a bug and the error goes up, like any other.
import type { Plugin, Verdict } from '../types.js';

export interface Refusal {
  readonly plugin: string;
  readonly reason: string;
}

/** Asks each plugin in order; the first refusal wins and the rest are not asked. */
export async function firstRefusal(
  plugins: readonly Plugin[],
  ask: (plugin: Plugin) => Verdict | Promise<Verdict>,
): Promise<Refusal | undefined> {
  for (const plugin of [...plugins]) {
    const verdict = await ask(plugin);
    if (verdict) return { plugin: plugin.name, reason: verdict.refuse };
  }
  return undefined;
}

/** Calls a notification hook on each plugin in order. */
export async function notifyAll(plugins: readonly Plugin[], call: (plugin: Plugin) => void | Promise<void>): Promise<void> {
  for (const plugin of [...plugins]) await call(plugin);
}

export interface PluginHost {
  use(plugin: Plugin): () => void;
}

/**
 * Runs `work` with `plugin` installed, and removes it in a `finally` — even when the turn throws
 * or is aborted — so a one-shot guard (the handoff guard, R12) can never outlive its turn.
 */
export async function withOneShotPlugin<T>(host: PluginHost, plugin: Plugin, work: () => Promise<T>): Promise<T> {
  const remove = host.use(plugin);
  try {
    return await work();
  } finally {
    remove();
  }
}
