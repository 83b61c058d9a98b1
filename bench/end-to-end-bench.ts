// Benchmark (e): overflow → committed handoff document, end to end, with a real daemon process,
// no model configured (the offline executor, X1). Each run writes a real session through
// ConversationContext and closes it (nobody owns it), waits until the daemon lists it and a quiet second more, appends
// one overflowing usage line, and times until the daemon's IPC event stream announces the commit;
// then git is asked whether that commit is there and holds only the document.
import fsSync from 'node:fs';
import path from 'node:path';
import type { AnyEvent } from '../dist/events.js';
import type { IpcClient } from '../dist/ipc/client.js';
import { SessionsReply } from '../dist/daemon/side-channels/status-schema.js';
import { DAEMON_NODE_OPTIONS } from '../dist/daemon/process/daemon-node-options.js';
import { projectPaths } from '../dist/paths.js';
import { ConversationContext } from '../dist/session/conversation-context.js';
import { startDaemonProcess } from './daemon-process.js';
import type { Figure, ItemResult } from './results.js';
import { usageLine } from './session-fixture.js';
import { formatMs, median, pause, pollUntil, timed } from './statistics.js';
import { makeBenchProject, type BenchProject } from './temp-project.js';

export interface EndToEndBenchOptions {
  readonly daemonBin: string;
  readonly runs: number;
  readonly log: (line: string) => void;
}

const TITLE = '(e) Overflow → committed handoff doc, end to end (offline executor)';
const MAX_CONTEXT_TOKENS = 128_000;
const RUN_DEADLINE_MS = 15_000;
const QUIET_MS = 1000;

interface Run {
  readonly total: number | null;
  readonly overflowed: number | null;
  readonly written: number | null;
  readonly migrated: number | null;
  readonly problem: string | null;
}

export async function benchEndToEnd(options: EndToEndBenchOptions): Promise<ItemResult> {
  const project = await makeBenchProject('e2e');
  const runs: Run[] = [];
  let gitSpawnMs = Number.NaN;
  try {
    const daemon = await startDaemonProcess({
      bin: options.daemonBin,
      root: project.root,
      env: project.env,
      outputFile: path.join(path.dirname(project.root), 'daemon.out'),
    });
    try {
      const status = await daemon.waitForStatus((current) => current.ready, 30_000);
      if (status.model !== null)
        throw new Error(`the daemon has a model configured (${status.model}); this item is for the offline executor`);
      const client = await daemon.connect();
      const events: { event: AnyEvent; at: number }[] = [];
      await client.subscribe((event) => events.push({ event, at: performance.now() }));
      try {
        for (let index = 0; index < options.runs; index += 1) {
          options.log(`(e) run ${index + 1} of ${options.runs}`);
          runs.push(await oneRun(project, client, events));
        }
        // The commit is a chain of git processes; what one costs on this machine right now says a lot.
        const spawns: number[] = [];
        for (let index = 0; index < 15; index += 1) spawns.push((await timed(() => project.git('rev-parse', 'HEAD'))).ms);
        gitSpawnMs = median(spawns);
      } finally {
        await client.close().catch(() => {});
      }
    } finally {
      await daemon.stop();
    }
  } finally {
    await project.cleanup();
  }

  const totals = runs.map((run) => run.total).filter((total): total is number => total !== null);
  const problems = runs
    .map((run, index) => (run.problem ? `run ${index + 1}: ${run.problem}` : null))
    .filter((problem): problem is string => problem !== null);
  const allCommitted = problems.length === 0 && totals.length === runs.length;
  const maximum = totals.length > 0 ? Math.max(...totals) : Number.NaN;
  const stage = (pick: (run: Run) => number | null) => formatMs(median(runs.map(pick).filter((value): value is number => value !== null)));
  const figures: Figure[] = [
    {
      name: `append → \`handoff.committed\`, median of ${runs.length} runs`,
      measured: formatMs(median(totals)),
      target: '< 1 s',
      pass: allCommitted && median(totals) < 1000,
    },
    {
      name: `append → \`handoff.committed\`, max of ${runs.length} runs`,
      measured: formatMs(maximum),
      target: '< 1 s',
      pass: allCommitted && maximum < 1000,
    },
    {
      name: 'one `git rev-parse HEAD` process in the same repo (median of 15), for scale',
      measured: formatMs(gitSpawnMs),
      target: '—',
      pass: null,
    },
    {
      name: 'every run: a commit holding only the document, `handoff: <id8> (offline)`',
      measured: allCommitted ? `${runs.length} of ${runs.length}` : `${runs.length - problems.length} of ${runs.length}`,
      target: 'all',
      pass: allCommitted,
    },
  ];
  return {
    id: 'e',
    title: TITLE,
    notRun: null,
    figures,
    notes: [
      `A real daemon process (\`node ${DAEMON_NODE_OPTIONS.join(' ')} dist/cli/ai-zen-daemon.js start --foreground\`, as \`start\` runs it) in a temp git repo with one commit, temp AI_ZEN_HOME and XDG_RUNTIME_DIR, no model configured (no OPENAI_* or AI_ZEN_MODEL), default config (auto-commit and notifications on).`,
      `Each run: a session written by ConversationContext (definition message, three turns, usage under its window of ${MAX_CONTEXT_TOKENS.toLocaleString('en')}) and closed; once \`sessions\` lists it and ${QUIET_MS / 1000} s more have passed (a real overflow follows a model reply that takes seconds), one usage line with prompt_tokens over the window is appended; the clock runs from just before that write to the arrival of \`handoff.committed\` on the daemon's IPC event stream (subscribed before). Afterwards \`git log\`/\`git show\` confirm the commit.`,
      `Where the time goes (medians): append → session.overflowed ${stage((run) => run.overflowed)}, → handoff.written ${stage((run) => run.written)}, → session.migrated ${stage((run) => run.migrated)}, → handoff.committed ${formatMs(median(totals))}. Every run: ${runs.map((run) => formatMs(run.total ?? Number.NaN)).join(', ')}.`,
      ...problems,
    ],
  };
}

async function oneRun(project: BenchProject, client: IpcClient, events: { event: AnyEvent; at: number }[]): Promise<Run> {
  const context = await ConversationContext.create({
    paths: projectPaths(project.root),
    model: 'bench-model',
    maxContextTokens: MAX_CONTEXT_TOKENS,
    env: project.env,
  });
  const id = context.currentId;
  const file = context.sessionFile;
  try {
    await context.appendMessage(
      { role: 'system', content: 'You are a careful coding agent working in this repository.' },
      { definition: true },
    );
    for (let turn = 1; turn <= 3; turn += 1) {
      await context.appendMessage({
        role: 'user',
        content: `Step ${turn}: extend the parser to handle case ${turn} and add a test for it.`,
      });
      await context.appendMessage({
        role: 'assistant',
        content: `Done with step ${turn}: src/parser.ts handles case ${turn}; test/parser.test.ts covers it and passes.`,
      });
      await context.appendUsage({ prompt_tokens: 40_000 * turn, completion_tokens: 300, total_tokens: 40_000 * turn + 300 });
    }
  } finally {
    await context.close();
  }
  const known = await pollUntil(
    async () => {
      const reply = SessionsReply.safeParse(await client.request('sessions').catch(() => null));
      return reply.success && reply.data.sessions.some((session) => session.id === id && !session.overflowed);
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
  if (!known) return { total: null, overflowed: null, written: null, migrated: null, problem: 'the daemon never listed the new session' };

  // A real overflow follows a model reply that took seconds: let the daemon finish with the new
  // file and with the previous run (its commit wakes the git watch and a facts refresh) first.
  await pause(QUIET_MS);
  const id8 = id.slice(0, 8);
  const from = events.length;
  const start = performance.now();
  fsSync.appendFileSync(file, usageLine(MAX_CONTEXT_TOKENS + 2_000));
  const find = (match: (event: AnyEvent) => boolean) => events.slice(from).find((entry) => match(entry.event));
  const committed = () => find((event) => event.name === 'handoff.committed' && path.basename(event.payload.path).includes(id8));
  const failed = () =>
    find(
      (event) =>
        (event.name === 'handoff.failed' && event.payload.sessionId === id) ||
        (event.name === 'handoff.commit-deferred' && event.payload.path.includes(id8)),
    );
  await pollUntil(() => committed() !== undefined || failed() !== undefined, { timeoutMs: RUN_DEADLINE_MS, intervalMs: 1 });
  const since = (entry: { at: number } | undefined) => (entry ? entry.at - start : null);
  const done = committed();
  const stages = {
    overflowed: since(find((event) => event.name === 'session.overflowed' && event.payload.sessionId === id)),
    written: since(find((event) => event.name === 'handoff.written' && event.payload.sessionId === id)),
    migrated: since(find((event) => event.name === 'session.migrated' && event.payload.oldId === id)),
  };
  if (done?.event.name !== 'handoff.committed') {
    const why = failed();
    const reason = why
      ? `${why.event.name}: ${JSON.stringify(why.event.payload).slice(0, 200)}`
      : `no handoff.committed within ${RUN_DEADLINE_MS / 1000} s`;
    return { total: null, ...stages, problem: reason };
  }
  const { commit, path: docPath } = done.event.payload;
  const subject = (await project.git('log', '-1', '--format=%s', commit)).trim();
  const changed = (await project.git('show', '--name-only', '--format=', commit)).trim().split('\n').filter(Boolean);
  let problem: string | null = null;
  if (subject !== `handoff: ${id8} (offline)`) problem = `commit ${commit.slice(0, 8)} has subject ${JSON.stringify(subject)}`;
  else if (changed.length !== 1 || changed[0] !== docPath)
    problem = `commit ${commit.slice(0, 8)} holds ${JSON.stringify(changed)}, not only ${docPath}`;
  return { total: done.at - start, ...stages, problem };
}
