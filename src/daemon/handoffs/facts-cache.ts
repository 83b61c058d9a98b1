// The daemon's facts (D2, X2): branch, commit, dirty state, ahead/behind and listening ports,
// kept current without busy polling — refreshed when the git state changes (git-watch.ts) and on
// demand. A handoff asks through `capture()` (the FactsProvider every executor uses) and gets a
// fresh capture; status asks through `get()` and gets the cached one while it is recent.
import type { Facts, FactsProvider } from '../../probe/facts.js';

export interface FactsCache extends FactsProvider {
  /** A fresh capture (joins one already under way that started after the last change). */
  capture(): Promise<Facts>;
  /** The cached facts when captured after the last change and within `maxAgeMs`; else a fresh capture. */
  get(options?: { maxAgeMs?: number }): Promise<Facts>;
  /** The last facts captured, however old; null before the first capture. */
  current(): Facts | null;
  /** The repository changed: the cached facts are stale. */
  invalidate(): void;
}

export interface FactsCacheOptions {
  readonly provider: FactsProvider;
  /** Monotonic milliseconds. */
  readonly clock?: () => number;
  /** How old cached facts may be for get() without maxAgeMs. Default 5 s (ports change without git noticing). */
  readonly maxAgeMs?: number;
}

export function createFactsCache(options: FactsCacheOptions): FactsCache {
  const clock = options.clock ?? (() => performance.now());
  const defaultMaxAge = options.maxAgeMs ?? 5000;
  let generation = 0;
  let cached: { facts: Facts; generation: number; at: number } | null = null;
  let inflight: { promise: Promise<Facts>; generation: number } | null = null;

  function capture(): Promise<Facts> {
    if (inflight && inflight.generation === generation) return inflight.promise;
    const started = { generation, at: clock() };
    const promise = options.provider.capture().then((facts) => {
      // A capture that started before a later one finished must not replace it.
      if (!cached || cached.at <= started.at) cached = { facts, generation: started.generation, at: started.at };
      return facts;
    });
    const entry = { promise, generation: started.generation };
    inflight = entry;
    const clear = () => {
      if (inflight === entry) inflight = null;
    };
    promise.then(clear, clear);
    return promise;
  }

  return {
    capture,
    async get(request = {}) {
      const maxAge = request.maxAgeMs ?? defaultMaxAge;
      if (cached && cached.generation === generation && clock() - cached.at <= maxAge) return cached.facts;
      return capture();
    },
    current: () => cached?.facts ?? null,
    invalidate() {
      generation += 1;
    },
  };
}
