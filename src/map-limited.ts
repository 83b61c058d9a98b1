// Runs an async step over many items, a few at a time: thousands at once each hold what their step
// holds (a read buffer, a socket) together — measured in the daemon as tens of MB resident after a
// startup read or a status of thousands of sessions.

/** `step` over every item, at most `limit` running at once; the results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, step: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await step(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
