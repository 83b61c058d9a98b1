// Poll a condition until it holds or a deadline passes: tests synchronise on what they can observe,
// never on sleeps.
export interface WaitForOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  readonly message?: string;
}

/** Resolves with the first truthy value of `condition`; rejects with `message` at the deadline. */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, message }: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`${message ?? 'condition not met'} within ${timeoutMs} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
