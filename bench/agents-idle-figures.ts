// Bench item (x), idle: what other repos' sessions in each agent's folders cost a daemon that watches
// none of them. Five real daemons in turn, each against the first, in the same run: every folder
// empty and no opencode database (the baseline); 10,000 Claude Code transcripts; an opencode database
// holding its tables and no session (what loading and opening the SQLite library costs); ~500 MB of
// opencode sessions; 5,000 Cline CLI sessions.
import path from 'node:path';
import { writeClaudeTranscripts } from './claude-transcripts-fixture.js';
import { writeClineSessions } from './cline-sessions-fixture.js';
import { type IdleCost, type IdleOptions, idleCost } from './agents-idle.js';
import { type OpencodeDatabaseSize, writeEmptyOpencodeDatabase, writeOpencodeDatabase } from './opencode-database-fixture.js';
import type { Figure } from './results.js';
import { formatBytes } from './statistics.js';

export interface AgentsIdleOptions extends IdleOptions {
  readonly otherTranscripts: number;
  readonly opencodeMegabytes: number;
  readonly opencodeSessions: number;
  readonly clineSessions: number;
  readonly log: (line: string) => void;
}

/** Idle CPU of two daemons doing nothing differs by this much (points of one core's %): the noise (x) allows. */
const CPU_NOISE = 0.02;
/** RSS of two idle daemons doing the same differs by up to this much (MiB). */
const RSS_NOISE_MIB = 3;
/** What libsql costs a daemon once loaded, its database open and read (MiB): docs/agents-opencode.md's ~11 MB. */
const SQLITE_MIB = 11;
const MIB = 1024 * 1024;

const cpu = (cost: IdleCost) => `${cost.cpu.toFixed(3)}%`;
const signedMib = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / MIB).toFixed(1)}`;
const overBaseline = (cost: IdleCost, baseline: IdleCost) =>
  `${signedMib(cost.rss - baseline.rss)} MiB, ${(cost.rss / baseline.rss).toFixed(2)}× the baseline`;
const rss = (cost: IdleCost, baseline: IdleCost) =>
  `${formatBytes(cost.rss)} (${overBaseline(cost, baseline)}; peak ${formatBytes(cost.peak)})`;

export async function benchAgentsIdle(options: AgentsIdleOptions): Promise<{ figures: Figure[]; notes: string[] }> {
  const { otherTranscripts, opencodeSessions, clineSessions } = options;
  options.log('(x) idle: every agent folder empty (the baseline)');
  const baseline = await idleCost(options, 'empty', async () => undefined);
  options.log(`(x) idle: ${otherTranscripts} other repos' Claude Code transcripts`);
  const claude = await idleCost(options, 'claude', async (folders) => {
    await writeClaudeTranscripts(folders.claude, otherTranscripts);
    return undefined;
  });
  options.log('(x) idle: an opencode database with its tables and no session');
  const tables = await idleCost(options, 'oc-tables', async (folders) => {
    await writeEmptyOpencodeDatabase(path.join(folders.dataHome, 'opencode', 'opencode.db'));
    return undefined;
  });
  let database: OpencodeDatabaseSize | null = null;
  let builtInMs = 0;
  options.log(`(x) idle: an opencode database of ~${options.opencodeMegabytes} MB of other repos' sessions`);
  const opencode = await idleCost(options, 'oc-big', async (folders) => {
    const started = performance.now();
    const written = await writeOpencodeDatabase(path.join(folders.dataHome, 'opencode', 'opencode.db'), {
      megabytes: options.opencodeMegabytes,
      sessions: opencodeSessions,
    });
    builtInMs = performance.now() - started;
    database = written.size;
    options.log(`(x) opencode database written: ${formatBytes(written.size.bytes)} in ${(builtInMs / 1000).toFixed(1)} s`);
    return written.close;
  });
  options.log(`(x) idle: ${clineSessions} other repos' Cline CLI sessions`);
  let clineBytes = 0;
  const cline = await idleCost(options, 'cline', async (folders) => {
    clineBytes = await writeClineSessions(folders.clineDir, clineSessions);
    return undefined;
  });
  if (baseline.sqliteLoaded) throw new Error('the baseline daemon loaded the SQLite library with no opencode database');
  if (!tables.sqliteLoaded || !opencode.sqliteLoaded) throw new Error('a daemon with an opencode database did not load the SQLite library');
  const size = database as OpencodeDatabaseSize | null;
  const cpuTarget = `no higher than the baseline (+${CPU_NOISE} points of noise)`;
  const sqliteBudget = baseline.rss + (SQLITE_MIB + RSS_NOISE_MIB) * MIB;
  const sqliteTarget = `≤ baseline + ${SQLITE_MIB + RSS_NOISE_MIB} MiB (libsql loaded and open, ${SQLITE_MIB} MiB, + ${RSS_NOISE_MIB} MiB of noise)`;
  const figures: Figure[] = [
    {
      name: 'idle daemon, every agent’s folder empty, no opencode database (baseline): CPU',
      measured: cpu(baseline),
      target: '—',
      pass: null,
    },
    {
      name: 'idle daemon, baseline: RSS',
      measured: `${formatBytes(baseline.rss)} (peak ${formatBytes(baseline.peak)})`,
      target: '—',
      pass: null,
    },
    {
      name: `idle daemon, ${otherTranscripts.toLocaleString('en')} transcripts of other repos in Claude’s folder: CPU`,
      measured: cpu(claude),
      target: cpuTarget,
      pass: claude.cpu <= baseline.cpu + CPU_NOISE,
    },
    {
      name: `idle daemon, ${otherTranscripts.toLocaleString('en')} Claude Code transcripts: RSS`,
      measured: rss(claude, baseline),
      target: `≤ baseline + ${RSS_NOISE_MIB} MiB (noise)`,
      pass: claude.rss <= baseline.rss + RSS_NOISE_MIB * MIB,
    },
    {
      name: 'idle daemon, an opencode database with its tables and no session: CPU',
      measured: cpu(tables),
      target: cpuTarget,
      pass: tables.cpu <= baseline.cpu + CPU_NOISE,
    },
    {
      name: 'idle daemon, an opencode database with its tables and no session: RSS (the SQLite library’s own cost)',
      measured: rss(tables, baseline),
      target: sqliteTarget,
      pass: tables.rss <= sqliteBudget,
    },
    {
      name: `idle daemon, an opencode database of ${size ? formatBytes(size.bytes) : '?'} (${opencodeSessions.toLocaleString('en')} sessions of other repos): CPU`,
      measured: cpu(opencode),
      target: cpuTarget,
      pass: opencode.cpu <= baseline.cpu + CPU_NOISE,
    },
    {
      name: `idle daemon, that opencode database: RSS`,
      measured: `${rss(opencode, baseline)}; ${signedMib(opencode.rss - tables.rss)} MiB over the tables-only database`,
      target: `${sqliteTarget}, and ≤ the tables-only database's + ${RSS_NOISE_MIB} MiB (its size costs nothing)`,
      pass: opencode.rss <= sqliteBudget && opencode.rss <= tables.rss + RSS_NOISE_MIB * MIB,
    },
    {
      name: `idle daemon, ${clineSessions.toLocaleString('en')} Cline CLI sessions of other repos: CPU`,
      measured: cpu(cline),
      target: cpuTarget,
      pass: cline.cpu <= baseline.cpu + CPU_NOISE,
    },
    {
      name: `idle daemon, ${clineSessions.toLocaleString('en')} Cline CLI sessions: RSS`,
      measured: rss(cline, baseline),
      target: `≤ baseline + ${RSS_NOISE_MIB} MiB (noise)`,
      pass: cline.rss <= baseline.rss + RSS_NOISE_MIB * MIB,
    },
  ];
  const notes = [
    `Idle: five real daemons (\`start --foreground\`) in turn, each in a temp repo with its own user home (HOME, CLAUDE_CONFIG_DIR, XDG_DATA_HOME, CLINE_DIR; the other agents' variables unset); CPU over ${options.idleMs / 1000} s starting ${options.steadyAfterSpawnMs / 1000} s after the ready line (schedstat when the kernel has it), RSS (VmRSS) at the end of that window, peak = VmHWM. Each daemon listed no session (checked), logged no warning (checked); the two with an opencode database had libsql mapped, the others not (checked in /proc/<pid>/maps).`,
    `Claude Code: ${otherTranscripts.toLocaleString('en')} transcripts in ${Math.ceil(otherTranscripts / 100)} other repos' slug folders.`,
    size
      ? `opencode: \`XDG_DATA_HOME/opencode/opencode.db\` in WAL mode with the schema opencode 1.18.33 writes (bench/fixtures/opencode-1.18.33-schema.sql, dumped from the real client's new database), ${size.sessions.toLocaleString('en')} sessions of 500 other repos, each 10 prompts and 10 replies with their parts (a bash tool call's output, 0.2–1.8× the mean, is most of the bytes): ${formatBytes(size.bytes)}, of which ${formatBytes(size.walBytes)} in the WAL of a connection the bench kept open through the measurement (as an opencode running elsewhere keeps it, not checkpointed); written in ${(builtInMs / 1000).toFixed(1)} s. The tables-only database is that schema with no row.`
      : 'opencode: the database was not written.',
    `Cline CLI: ${clineSessions.toLocaleString('en')} sessions of 500 other repos in \`CLINE_DIR/data/sessions/<id>/\`, each its manifest \`<id>.json\` and a 20-message \`<id>.messages.json\` (${formatBytes(clineBytes)} in all); the baseline's \`data/sessions\` is there and empty. Cline's own \`data/db/sessions.db\` (an index it rebuilds from these files) is not written: the daemon never opens it.`,
    `Targets: CPU as (x) judges it, no higher than the baseline's plus ${CPU_NOISE} points; RSS no more than the baseline's plus ${RSS_NOISE_MIB} MiB (two idle daemons doing the same were seen within 1 MiB), and for a daemon with an opencode database plus the ${SQLITE_MIB} MiB libsql costs once loaded and open (docs/agents-opencode.md), and within the noise of the tables-only database's: a user with opencode pays for the reader once, never for the database's size.`,
  ];
  return { figures, notes };
}
