// A zod schema compiled by zod's own ahead-of-time compiler (`z.compile`) the first time it is used.
//
// For the schemas on the path from an append to a subscriber's event (every session line the
// daemon reads, every event it sends and every event a client receives): z.compile turns the schema
// tree into one generated function, and falls back to the ordinary parser whenever that function
// cannot decide, so results and error messages are the runtime's own. The gain is on a process that
// wakes from idle: a parse through the schema tree touches dozens of cold objects and cost ~100 µs
// there, the compiled one ~25 µs (bench g). Compiled on first use, not at import: compiling costs
// ~10 ms, which a short CLI command that never parses these should not pay.
import { z } from 'zod';

export function compiledOnFirstUse<T extends z.ZodType>(schema: T): () => T {
  let compiled: T | undefined;
  return () => (compiled ??= z.compile(schema));
}
