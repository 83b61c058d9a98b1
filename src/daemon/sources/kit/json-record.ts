// The one way an agent's reader looks inside a parsed JSON value it does not trust: an object is a
// record of unknowns, anything else (array, string, null) is not.

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null;
}

/** A JSON line as a record; null for a torn line, a non-object or anything that does not parse. */
export function parseRecord(text: string): JsonRecord | null {
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return null;
  }
}
