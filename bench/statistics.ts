// Small summaries of timing samples. Percentiles use the nearest-rank method, so p99 of 200
// samples is the 198th smallest: a real observation, never an interpolation.

export interface Summary {
  readonly count: number;
  readonly median: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function summarise(values: readonly number[]): Summary {
  return {
    count: values.length,
    median: median(values),
    p99: percentile(values, 0.99),
    min: values.length === 0 ? Number.NaN : Math.min(...values),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

/** Milliseconds with a precision that suits their size: 0.123 ms, 12.3 ms, 1234 ms. */
export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 1) return `${value.toFixed(3)} ms`;
  if (value < 100) return `${value.toFixed(1)} ms`;
  return `${Math.round(value)} ms`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export async function timed<T>(action: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await action();
  return { value, ms: performance.now() - start };
}

/** Pacing between benchmark steps (not synchronisation: nothing waits on it for correctness). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` until it holds or the deadline passes; false on timeout. */
export async function pollUntil(
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await pause(options.intervalMs ?? 10);
  }
}
