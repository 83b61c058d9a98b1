// Where each agent really compacts each model, learned from the compactions the daemon sees:
// Claude Code's native point moved from ~83% to ~73% of the window without notice, so the table's
// number is only the start. A compaction the agent chose by itself (Claude's `compact_boundary` with
// trigger `auto` and its `preTokens`; Codex's compaction records and the reading just before them)
// is one observation; the point is the lowest of the latest few, in whole percent of the window (the
// point may move down at any time; a lone compaction that a big tool output pushed past the point
// must not lift it).
//
// What teaches nothing: a person's `/compact` (trigger `manual`, or below half the window); a
// compaction forced by an error (`reactive`: the API said the prompt is too long, and the agent
// compacted to recover — wherever that happened); a compaction stamped after now (a clock that is
// wrong, or a file that lies). Observations are ordered by when the daemon saw them, never by the
// file's own stamp.
//
// One repo's transcripts set the point for that repo only: another repo uses a point only once two
// repos or more saw it, and then the middle of their points (the higher of two), so one repo — a
// cloned one with crafted transcripts — cannot move every repo's handoffs.
//
// Kept in `$AI_ZEN_HOME/compaction-points.json`, per agent and model, so it survives restarts and
// every project's daemon shares it: a save reads the file again and merges, so two daemons never drop
// each other's observations. `ai-zen-daemon learned` shows it; `--forget` writes when it was
// forgotten, so a daemon reading old transcripts again does not learn it back.
import { statSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { writeFileInside } from '../../fs/safe-write.js';

export const POINTS_FILE = 'compaction-points.json';
/** Observations kept per agent, model and repo. */
export const KEPT_OBSERVATIONS = 5;
/** Repos kept per agent and model (the ones seen last). */
export const KEPT_REPOS = 20;
/** A compaction below this share of the window is a person's, not the agent's point. */
export const LOWEST_NATIVE_PERCENT = 50;
/** Triggers that say the agent did not choose the moment. */
const NOT_CHOSEN = new Set(['manual', 'reactive']);
/** How far past now a file's stamp may be and still be believed (clocks of one machine, a little apart). */
const FUTURE_SLACK_MS = 5 * 60_000;
/** When an observation of the first file format was seen: before any other. */
const LEGACY_SEEN_AT = '1970-01-01T00:00:00.000Z';
/** How often a lookup checks whether another process rewrote the file. */
const RECHECK_MS = 2_000;

export interface CompactionObservation {
  /** The compaction's own stamp, as the transcript says it (it names the compaction: the same one seen again is not counted twice). */
  readonly at: string;
  /** The context just before the compaction. */
  readonly preTokens: number;
  readonly window: number;
  /** When the daemon saw it: the order observations are kept in. */
  readonly seenAt?: string;
  /** The repo whose transcript showed it (null: written before repos were kept). */
  readonly repo?: string | null;
}

const Observation = z.looseObject({
  at: z.string().max(64),
  preTokens: z.number().int().positive(),
  window: z.number().int().positive(),
  seenAt: z.string().max(64).optional(),
  repo: z.string().max(4096).nullable().optional(),
});
const PointsFile = z.looseObject({
  version: z.union([z.literal(1), z.literal(2)]),
  agents: z.record(z.string().max(64), z.record(z.string().max(200), z.array(Observation).max(500))),
  forgotten: z.record(z.string().max(64), z.record(z.string().max(200), z.string().max(64))).optional(),
});
type Observations = Record<string, Record<string, CompactionObservation[]>>;
type Forgotten = Record<string, Record<string, string>>;
interface Learned {
  readonly agents: Observations;
  readonly forgotten: Forgotten;
}

/** The learned point of these observations, in whole percent of the window (null: none usable). */
export function learnedPoint(observations: readonly CompactionObservation[]): number | null {
  const percents = observations.map((seen) => (seen.preTokens * 100) / seen.window).filter((percent) => isNativePercent(percent));
  return percents.length === 0 ? null : Math.floor(Math.min(...percents));
}

/**
 * The point a repo runs by: its own observations' when it has some; else the middle of the other
 * repos' points once two or more have one (the higher of two).
 */
export function pointForRepo(observations: readonly CompactionObservation[], repo: string): number | null {
  const own = observations.filter((seen) => seen.repo === repo);
  if (own.length > 0) return learnedPoint(own);
  const byRepo = new Map<string, CompactionObservation[]>();
  for (const seen of observations) byRepo.set(seen.repo ?? '', [...(byRepo.get(seen.repo ?? '') ?? []), seen]);
  const points = [...byRepo.values()].map(learnedPoint).filter((point): point is number => point !== null);
  if (points.length < 2) return null;
  points.sort((a, b) => a - b);
  return points[Math.floor(points.length / 2)]!;
}

function isNativePercent(percent: number): boolean {
  return percent >= LOWEST_NATIVE_PERCENT && percent <= 100;
}

const orderOf = (seen: CompactionObservation) => seen.seenAt ?? seen.at;
const sameCompaction = (a: CompactionObservation, b: CompactionObservation) =>
  a.at === b.at && a.preTokens === b.preTokens && (a.repo ?? null) === (b.repo ?? null);

/** The observations kept after `seen`: the latest few of each repo, one per compaction, in the order the daemon saw them. */
export function withObservation(kept: readonly CompactionObservation[], seen: CompactionObservation): CompactionObservation[] {
  const merged = [...kept.filter((old) => !sameCompaction(old, seen)), seen];
  merged.sort((a, b) => orderOf(a).localeCompare(orderOf(b)));
  const repos = [...new Set(merged.map((one) => one.repo ?? null).reverse())].slice(0, KEPT_REPOS);
  return repos
    .flatMap((repo) => merged.filter((one) => (one.repo ?? null) === repo).slice(-KEPT_OBSERVATIONS))
    .sort((a, b) => orderOf(a).localeCompare(orderOf(b)));
}

export interface CompactionPoints {
  /** The learned point of this agent's model for this daemon's repo (null: none to go by). */
  pointFor(agent: string, model: string | null): number | null;
  /** A compaction the agent did by itself; false when it teaches nothing (not chosen, below half the window, known, forgotten, from the future). */
  observe(
    agent: string,
    model: string | null,
    seen: Omit<CompactionObservation, 'seenAt' | 'repo'> & { readonly trigger?: string | null },
  ): boolean;
  /** The pending save (tests, shutdown). */
  flushed(): Promise<void>;
}

export interface CompactionPointsOptions {
  /** `$AI_ZEN_HOME`. */
  readonly home: string;
  readonly logger: Logger;
  /** The repo this daemon watches (real path): its observations are its own. */
  readonly repo: string;
  readonly now?: () => number;
}

export function modelKey(model: string | null): string {
  return (model ?? '').trim().toLowerCase() || '(unknown model)';
}

/** Reads what was learned (a missing or unreadable file: nothing yet, said in the log). */
export async function loadCompactionPoints(options: CompactionPointsOptions): Promise<CompactionPoints> {
  const now = options.now ?? Date.now;
  const file = path.join(options.home, POINTS_FILE);
  let known: Learned = await readLearned(options.home, options.logger);
  let stamp = fileStamp(file);
  let checkedAt = now();
  let saving: Promise<void> = Promise.resolve();

  /** Another process (a `learned --forget`, another daemon) may have rewritten the file: read it again when it changed. */
  function fresh(): Learned {
    if (now() - checkedAt < RECHECK_MS) return known;
    checkedAt = now();
    const current = fileStamp(file);
    if (current !== stamp) {
      stamp = current;
      saving = saving.then(async () => {
        known = mergeLearned(await readLearned(options.home, options.logger, { quiet: true }), known);
      });
    }
    return known;
  }

  function save(): void {
    saving = saving
      .then(async () => {
        // Another project's daemon may have learned something since: merge, never overwrite.
        known = mergeLearned(await readLearned(options.home, options.logger, { quiet: true }), known);
        await fs.mkdir(options.home, { recursive: true, mode: 0o700 });
        await writeLearned(options.home, known);
        stamp = fileStamp(file);
      })
      .catch((error: unknown) => options.logger.warn({ err: error }, `could not save what was learned in ${POINTS_FILE}`));
  }

  return {
    pointFor: (agent, model) => pointForRepo(fresh().agents[agent]?.[modelKey(model)] ?? [], options.repo),
    observe(agent, model, seen) {
      if (NOT_CHOSEN.has(seen.trigger ?? '') || !isNativePercent((seen.preTokens * 100) / seen.window)) return false;
      const stampedAt = Date.parse(seen.at);
      if (!Number.isFinite(stampedAt) || stampedAt > now() + FUTURE_SLACK_MS) return false;
      const key = modelKey(model);
      const current = fresh();
      const forgottenAt = current.forgotten[agent]?.[key];
      if (forgottenAt !== undefined && stampedAt <= Date.parse(forgottenAt)) return false;
      const kept = current.agents[agent]?.[key] ?? [];
      const observation: CompactionObservation = {
        at: seen.at,
        preTokens: seen.preTokens,
        window: seen.window,
        seenAt: new Date(now()).toISOString(),
        repo: options.repo,
      };
      if (kept.some((old) => sameCompaction(old, observation))) return false;
      const list = withObservation(kept, observation);
      known = { ...current, agents: { ...current.agents, [agent]: { ...current.agents[agent], [key]: list } } };
      options.logger.info(
        { agent, model: key, preTokens: seen.preTokens, window: seen.window, point: pointForRepo(list, options.repo) },
        'learned where the agent compacts by itself',
      );
      save();
      return true;
    },
    flushed: () => saving,
  };
}

/** What `ai-zen-daemon learned` shows: each agent's model, the point this repo runs by, and what it rests on. */
export async function describeLearned(
  home: string,
  repo: string,
  logger: Logger,
): Promise<{ agent: string; model: string; point: number | null; observations: number; repos: number; forgottenAt: string | null }[]> {
  const learned = await readLearned(home, logger);
  const rows = [];
  for (const [agent, byModel] of Object.entries(learned.agents))
    for (const [model, list] of Object.entries(byModel))
      rows.push({
        agent,
        model,
        point: pointForRepo(list, repo),
        observations: list.length,
        repos: new Set(list.map((seen) => seen.repo ?? null)).size,
        forgottenAt: learned.forgotten[agent]?.[model] ?? null,
      });
  return rows.sort((a, b) => a.agent.localeCompare(b.agent) || a.model.localeCompare(b.model));
}

/** Forgets what was learned (one agent, one model of it, or all), for every repo; returns how many observations went. */
export async function forgetLearned(
  home: string,
  logger: Logger,
  which: { agent?: string; model?: string },
  now: () => number = Date.now,
): Promise<number> {
  const learned = await readLearned(home, logger);
  const at = new Date(now()).toISOString();
  let dropped = 0;
  const agents: Observations = {};
  const forgotten: Forgotten = structuredClone(learned.forgotten);
  for (const [agent, byModel] of Object.entries(learned.agents)) {
    for (const [model, list] of Object.entries(byModel)) {
      const hit = (which.agent === undefined || which.agent === agent) && (which.model === undefined || modelKey(which.model) === model);
      if (hit) {
        dropped += list.length;
        forgotten[agent] = { ...forgotten[agent], [model]: at };
      } else (agents[agent] ??= {})[model] = list;
    }
  }
  if (which.agent !== undefined && which.model !== undefined)
    forgotten[which.agent] = { ...forgotten[which.agent], [modelKey(which.model)]: at };
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await writeLearned(home, { agents, forgotten });
  return dropped;
}

/** The file's observations and the daemon's, together; what was forgotten since an observation was seen is dropped. */
function mergeLearned(onDisk: Learned, mine: Learned): Learned {
  const forgotten: Forgotten = structuredClone(onDisk.forgotten);
  for (const [agent, byModel] of Object.entries(mine.forgotten))
    for (const [model, at] of Object.entries(byModel))
      if ((forgotten[agent]?.[model] ?? '') < at) forgotten[agent] = { ...forgotten[agent], [model]: at };
  const agents: Observations = structuredClone(onDisk.agents);
  for (const [agent, byModel] of Object.entries(mine.agents)) {
    agents[agent] = { ...agents[agent] };
    for (const [model, list] of Object.entries(byModel))
      agents[agent]![model] = list.reduce((kept, one) => withObservation(kept, one), agents[agent]![model] ?? []);
  }
  for (const [agent, byModel] of Object.entries(agents))
    for (const [model, list] of Object.entries(byModel)) {
      const at = forgotten[agent]?.[model];
      if (at !== undefined) byModel[model] = list.filter((seen) => orderOf(seen) > at);
    }
  return { agents, forgotten };
}

function fileStamp(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

async function writeLearned(home: string, learned: Learned): Promise<void> {
  await writeFileInside(
    home,
    POINTS_FILE,
    `${JSON.stringify({ version: 2, agents: learned.agents, forgotten: learned.forgotten }, null, 2)}\n`,
  );
}

async function readLearned(home: string, logger: Logger, how: { quiet?: boolean } = {}): Promise<Learned> {
  let text: string;
  try {
    text = await fs.readFile(path.join(home, POINTS_FILE), 'utf8');
  } catch {
    return { agents: {}, forgotten: {} };
  }
  let parsed: ReturnType<typeof PointsFile.safeParse>;
  try {
    parsed = PointsFile.safeParse(JSON.parse(text));
  } catch {
    parsed = PointsFile.safeParse(null);
  }
  if (!parsed.success) {
    if (!how.quiet) logger.warn({ file: POINTS_FILE }, `${POINTS_FILE} is not what ai-zen writes; learning again from scratch`);
    return { agents: {}, forgotten: {} };
  }
  // Observations written before the daemon kept when it saw them are the oldest, and no repo's own.
  const agents: Observations = {};
  for (const [agent, byModel] of Object.entries(parsed.data.agents))
    for (const [model, list] of Object.entries(byModel))
      (agents[agent] ??= {})[model] = list.map((seen) => ({ ...seen, seenAt: seen.seenAt ?? LEGACY_SEEN_AT, repo: seen.repo ?? null }));
  return { agents, forgotten: parsed.data.forgotten ?? {} };
}
