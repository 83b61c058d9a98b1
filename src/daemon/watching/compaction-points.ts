// Where each agent really compacts each model, learned from the compactions the daemon sees
// (issue 19 §2): Claude Code's native point moved from ~83% to ~73% of the window without notice,
// so the table's number is only the start. A compaction the agent did by itself (Claude's
// `compact_boundary` with trigger `auto` and its `preTokens`; Codex's compaction records and the
// reading just before them) is one observation; the point is the lowest of the latest few (the
// point may move down at any time; a lone compaction that a big tool output pushed past the point
// must not lift it), in whole percent of the window. A compaction below half the window is a
// person's `/compact`, not the agent's point, and teaches nothing.
//
// Kept in `$AI_ZEN_HOME/compaction-points.json`, per agent and model, so it survives restarts and
// every project's daemon shares it: a save reads the file again and merges, so two daemons never
// drop each other's observations.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { writeFileInside } from '../../fs/safe-write.js';

export const POINTS_FILE = 'compaction-points.json';
/** Observations kept per agent and model. */
export const KEPT_OBSERVATIONS = 5;
/** A compaction below this share of the window is a person's, not the agent's point. */
export const LOWEST_NATIVE_PERCENT = 50;

export interface CompactionObservation {
  readonly at: string;
  /** The context just before the compaction. */
  readonly preTokens: number;
  readonly window: number;
}

const Observation = z.strictObject({
  at: z.string().max(64),
  preTokens: z.number().int().positive(),
  window: z.number().int().positive(),
});
const PointsFile = z.looseObject({
  version: z.literal(1),
  agents: z.record(z.string().max(64), z.record(z.string().max(200), z.array(Observation).max(100))),
});
type Observations = Record<string, Record<string, CompactionObservation[]>>;

/** The learned point of these observations, in whole percent of the window (null: none usable). */
export function learnedPoint(observations: readonly CompactionObservation[]): number | null {
  const percents = observations.map((seen) => (seen.preTokens * 100) / seen.window).filter((percent) => isNativePercent(percent));
  return percents.length === 0 ? null : Math.floor(Math.min(...percents));
}

function isNativePercent(percent: number): boolean {
  return percent >= LOWEST_NATIVE_PERCENT && percent <= 100;
}

/** The observations kept after `seen`: the latest few, one per moment. */
export function withObservation(kept: readonly CompactionObservation[], seen: CompactionObservation): CompactionObservation[] {
  const merged = [...kept.filter((old) => old.at !== seen.at || old.preTokens !== seen.preTokens), seen];
  merged.sort((a, b) => a.at.localeCompare(b.at));
  return merged.slice(-KEPT_OBSERVATIONS);
}

export interface CompactionPoints {
  /** The learned point of this agent's model (null: never seen it compact by itself). */
  pointFor(agent: string, model: string | null): number | null;
  /** A compaction the agent did by itself; false when it teaches nothing (manual, below half the window, known). */
  observe(agent: string, model: string | null, seen: CompactionObservation & { readonly trigger?: string | null }): boolean;
  /** The pending save (tests, shutdown). */
  flushed(): Promise<void>;
}

export interface CompactionPointsOptions {
  /** `$AI_ZEN_HOME`. */
  readonly home: string;
  readonly logger: Logger;
}

function keyOf(model: string | null): string {
  return (model ?? '').trim().toLowerCase() || '(unknown model)';
}

/** Reads what was learned (a missing or unreadable file: nothing yet, said in the log). */
export async function loadCompactionPoints(options: CompactionPointsOptions): Promise<CompactionPoints> {
  let known: Observations = await readPoints(options);
  let saving: Promise<void> = Promise.resolve();

  function save(): void {
    saving = saving
      .then(async () => {
        // Another project's daemon may have learned something since: merge, never overwrite.
        const onDisk = await readPoints(options, { quiet: true });
        const merged: Observations = { ...onDisk };
        for (const [name, byModel] of Object.entries(known)) {
          merged[name] = { ...merged[name] };
          for (const [key, list] of Object.entries(byModel)) {
            merged[name]![key] = list.reduce((kept, one) => withObservation(kept, one), merged[name]![key] ?? []);
          }
        }
        known = merged;
        await fs.mkdir(options.home, { recursive: true, mode: 0o700 });
        await writeFileInside(options.home, POINTS_FILE, `${JSON.stringify({ version: 1, agents: merged }, null, 2)}\n`);
      })
      .catch((error: unknown) => options.logger.warn({ err: error }, `could not save what was learned in ${POINTS_FILE}`));
  }

  return {
    pointFor: (agent, model) => learnedPoint(known[agent]?.[keyOf(model)] ?? []),
    observe(agent, model, seen) {
      if (seen.trigger === 'manual' || !isNativePercent((seen.preTokens * 100) / seen.window)) return false;
      const key = keyOf(model);
      const kept = known[agent]?.[key] ?? [];
      if (kept.some((old) => old.at === seen.at && old.preTokens === seen.preTokens)) return false;
      const observation = { at: seen.at, preTokens: seen.preTokens, window: seen.window };
      known = { ...known, [agent]: { ...known[agent], [key]: withObservation(kept, observation) } };
      options.logger.info(
        { agent, model: key, preTokens: seen.preTokens, window: seen.window, point: learnedPoint(known[agent]![key]!) },
        'learned where the agent compacts by itself',
      );
      save();
      return true;
    },
    flushed: () => saving,
  };
}

async function readPoints(options: CompactionPointsOptions, how: { quiet?: boolean } = {}): Promise<Observations> {
  let text: string;
  try {
    text = await fs.readFile(path.join(options.home, POINTS_FILE), 'utf8');
  } catch {
    return {};
  }
  let parsed: ReturnType<typeof PointsFile.safeParse>;
  try {
    parsed = PointsFile.safeParse(JSON.parse(text));
  } catch {
    parsed = PointsFile.safeParse(null);
  }
  if (!parsed.success) {
    if (!how.quiet) options.logger.warn({ file: POINTS_FILE }, `${POINTS_FILE} is not what ai-zen writes; learning again from scratch`);
    return {};
  }
  return parsed.data.agents;
}
