// `previous_session`'s search may not hold the agent. RE2 runs in linear time, but
// linear in the text times the compiled program: 49 × `[^\n]{999}` over a 30 KB message took 31 s,
// and a search on the main thread left Ctrl-C unanswered until it was done. So the search runs in a
// worker thread (the agent's thread stays free for Ctrl-C and the model), within a time budget,
// with a cap on the compiled pattern's size; a stopped search returns what it found so far and
// says so. The worker is terminated, not asked to stop: a match inside one long message cannot be
// interrupted any other way.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface SearchQuery {
  readonly search: string;
  readonly regex: boolean;
}

export interface SearchLimits {
  /** How long the search may take, compiling included (ms). */
  readonly budgetMs: number;
  /** The largest compiled pattern searched with, in RE2 instructions. */
  readonly maxProgramSize: number;
  readonly signal?: AbortSignal;
}

export type SearchOutcome =
  | {
      readonly ok: true;
      /** [text list, index] of each text that matches, in order. */
      readonly hits: readonly (readonly [number, number])[];
      /** How many texts were searched (all of them unless stopped). */
      readonly searched: number;
      /** Why the search stopped before the end, and when. */
      readonly stopped: { readonly reason: 'time' | 'aborted'; readonly afterMs: number } | null;
    }
  | { readonly ok: false; readonly error: string };

type WorkerMessage =
  | { type: 'hit'; list: number; index: number }
  | { type: 'searched'; count: number }
  | { type: 'done' }
  | { type: 'invalid'; message: string }
  | { type: 'too-large'; size: number };

/**
 * The worker's body. Run from its source text (`eval`), so it needs no file of its own beside the
 * built one: it may use nothing from this module, only what it requires.
 */
function searchWorker(threads: typeof import('node:worker_threads'), load: (id: string) => unknown): void {
  const port = threads.parentPort!;
  const data = threads.workerData as { query: SearchQuery; lists: string[][]; re2js: string; maxProgramSize: number };
  let test: (text: string) => boolean;
  if (data.query.regex) {
    const { RE2JS } = load(data.re2js) as typeof import('re2js');
    let pattern: import('re2js').RE2JS;
    try {
      pattern = RE2JS.compile(data.query.search, RE2JS.CASE_INSENSITIVE | RE2JS.MULTILINE);
    } catch (error) {
      port.postMessage({ type: 'invalid', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    const size = pattern.programSize();
    if (size > data.maxProgramSize) {
      port.postMessage({ type: 'too-large', size });
      return;
    }
    test = (text) => pattern.matcher(text).find();
  } else {
    const needle = data.query.search.toLowerCase();
    test = (text) => text.toLowerCase().includes(needle);
  }
  let count = 0;
  data.lists.forEach((list, listIndex) => {
    list.forEach((text, index) => {
      if (test(text)) port.postMessage({ type: 'hit', list: listIndex, index });
      count += 1;
      port.postMessage({ type: 'searched', count });
    });
  });
  port.postMessage({ type: 'done' });
}

const WORKER_SOURCE = `(${searchWorker.toString()})(require('node:worker_threads'), require);`;
const RE2JS_ENTRY = createRequire(import.meta.url).resolve('re2js');

/** Searches each list of texts in order; never longer than the budget, never past an abort. */
export function boundedSearch(lists: readonly (readonly string[])[], query: SearchQuery, limits: SearchLimits): Promise<SearchOutcome> {
  const started = Date.now();
  if (limits.signal?.aborted) return Promise.resolve({ ok: true, hits: [], searched: 0, stopped: { reason: 'aborted', afterMs: 0 } });
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { query, lists, re2js: RE2JS_ENTRY, maxProgramSize: limits.maxProgramSize },
    // A pattern's compiled program lives here too: a worker that runs out is ended, not the agent.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  const hits: [number, number][] = [];
  let searched = 0;
  return new Promise<SearchOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: SearchOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const stop = (reason: 'time' | 'aborted') => finish({ ok: true, hits, searched, stopped: { reason, afterMs: Date.now() - started } });
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('time'), limits.budgetMs);
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'hit') hits.push([message.list, message.index]);
      else if (message.type === 'searched') searched = message.count;
      else if (message.type === 'done') finish({ ok: true, hits, searched, stopped: null });
      else if (message.type === 'invalid') finish({ ok: false, error: `not a valid regular expression (RE2 syntax): ${message.message}` });
      else
        finish({
          ok: false,
          error: `the regular expression is too large to search with (${message.size} instructions once compiled, at most ${limits.maxProgramSize}): use fewer or smaller repetitions`,
        });
    });
    worker.on('error', (error) => finish({ ok: false, error: `the search failed: ${error.message}` }));
    worker.on('exit', () => finish({ ok: false, error: 'the search stopped unexpectedly' }));
  });
}
