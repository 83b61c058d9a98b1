// What a person sees of a handoff or migration, manual or automatic, read from the typed event
// catalogue: the progress hint (R21), each downgrade (R11), the document's path on a line of its
// own (R23), and the new session after a migration (R25).
import type { EventBus } from '../../../events.js';
import type { HandoffRecord } from './last-handoff.js';
import type { Style } from './style.js';

export const PROGRESS_HINT = 'Writing handoff document…';

export interface HandoffViewOptions {
  readonly events: EventBus;
  readonly write: (text: string) => void;
  readonly style: Style;
  /** Told of every document written, for /status. */
  readonly onWritten?: (record: HandoffRecord) => void;
  readonly now?: () => Date;
}

/** Subscribes; returns the unsubscriber. */
export function showHandoffProgress(options: HandoffViewOptions): () => void {
  const { events, write, style } = options;
  const now = options.now ?? (() => new Date());
  const stops = [
    events.on('handoff.started', (event) => {
      const how = event.executor === 'self' ? '' : ` (${event.executor})`;
      write(`${style.dim(`${PROGRESS_HINT}${how}`)}\n`);
    }),
    events.on('handoff.downgraded', (event) => {
      write(`${style.yellow(`${event.from} handoff failed: ${event.reason} — trying ${event.to}`)}\n`);
    }),
    events.on('handoff.written', (event) => {
      const then = event.mode === 'migrate' ? '; starting a new session from it' : '';
      write(`${style.green('✓')} Handoff document written (${event.executor})${then}:\n`);
      // R23: the path alone on its line, so it can be copied as it is.
      write(`${style.bold(event.path)}\n`);
      options.onWritten?.({
        path: event.path,
        executor: event.executor,
        mode: event.mode,
        at: now().toISOString(),
        ...(event.checks ? { checks: event.checks } : {}),
      });
    }),
    events.on('session.migrated', (event) => {
      write(`${style.green('✓')} Migrated: now in session ${event.newId}; the old session ${event.oldId} is kept as it was.\n`);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
