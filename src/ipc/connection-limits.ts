// How the IPC server keeps room for the next client (64 idle connections locked out
// `status` and `stop`, and half a frame was held for ever). A connection with nothing in flight
// that says nothing for idleTimeoutMs is closed (subscribers wait for events, so they are exempt);
// one holding part of a frame for partialFrameTimeoutMs is closed whatever it is; and a new
// client past maxConnections makes room by closing the connection idle the longest, rather than
// being refused itself.
export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly idleTimeoutMs: number;
  readonly partialFrameTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 64,
  idleTimeoutMs: 60_000,
  partialFrameTimeoutMs: 10_000,
};

/** What the server knows of a connection, for choosing which one makes room. */
export interface ConnectionActivity {
  readonly subscribed: boolean;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  /** Last byte received or reply sent (ms, any monotonic clock). */
  readonly lastActivity: number;
}

/**
 * The connection to close so a new client fits: the longest idle one with nothing in flight,
 * plain clients before subscribers. Null when every connection is waiting for an answer.
 */
export function connectionToDrop<T>(connections: ReadonlyMap<T, ConnectionActivity>): T | null {
  let best: { key: T; activity: ConnectionActivity } | null = null;
  for (const [key, activity] of connections) {
    if (activity.inFlight > 0) continue;
    if (
      best === null ||
      (best.activity.subscribed && !activity.subscribed) ||
      (best.activity.subscribed === activity.subscribed && activity.lastActivity < best.activity.lastActivity)
    ) {
      best = { key, activity };
    }
  }
  return best?.key ?? null;
}
