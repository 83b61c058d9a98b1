// Benchmark (r): what twenty enabled repos cost once they go quiet. One user home, `enable --global`,
// each repo's daemon started as a session start starts it (the real SessionStart hook, the lean
// entry the shim runs); each session's agent is a real process (`sleep`) named in Claude Code's
// session registry. First one daemon alone, with a live session: the baseline. Then twenty, all
// live; then nineteen sessions end (their processes killed) and the daemons of those repos exit by
// themselves after `daemon.idleExitMinutes`. Measured: the total RSS of every daemon still running,
// against the one daemon's, in the same run.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';
import { connectIpc } from '../dist/ipc/client.js';
import { socketPathFor } from '../dist/ipc/socket-path.js';
import { daemonLockName, isLockHeld } from '../dist/lock/os-lock.js';
import { memory } from './proc-usage.js';
import type { ItemResult } from './results.js';
import { formatBytes, pause, pollUntil } from './statistics.js';
import { writeClaudeTranscript } from './spawn-timing.js';

const run = promisify(execFile);

export interface IdleReposBenchOptions {
  readonly daemonBin: string;
  readonly repos: number;
  /** `daemon.idleExitMinutes` in the user's config (the default is 30; the bench cannot wait that long). */
  readonly idleMinutes: number;
  /** RSS is read this long after every daemon answered (past the start-up tail). */
  readonly steadyMs: number;
  readonly log: (line: string) => void;
}

const TITLE = '(r) Twenty enabled repos, idle: total daemon RSS against one daemon’s';
const TARGET_RATIO = 1.2;

interface Repo {
  readonly root: string;
  readonly session: string;
  agent: ChildProcess | null;
}

export async function benchIdleRepos(options: IdleReposBenchOptions): Promise<ItemResult> {
  if (process.platform !== 'linux') throw new Error("needs Linux /proc to read the daemons' RSS");
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'azb-r-')));
  const home = path.join(base, 'home');
  const claudeHome = path.join(base, 'claude');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AI_ZEN_HOME: home,
    XDG_RUNTIME_DIR: path.join(base, 'run'),
    CLAUDE_CONFIG_DIR: claudeHome,
    // Never the machine's own agents' folders.
    CODEX_HOME: path.join(base, 'codex'),
    COPILOT_HOME: path.join(base, 'copilot'),
    GEMINI_CLI_HOME: path.join(base, 'gemini'),
    QWEN_HOME: path.join(base, 'qwen'),
    PI_CODING_AGENT_DIR: path.join(base, 'pi'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(base, 'gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
  };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AI_ZEN_MODEL', 'NODE_EXTRA_CA_CERTS']) delete env[key];
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await fs.mkdir(env.XDG_RUNTIME_DIR!, { mode: 0o700 });
  await fs.mkdir(path.join(claudeHome, 'sessions'), { recursive: true });
  await fs.writeFile(path.join(home, 'config.json'), JSON.stringify({ daemon: { idleExitMinutes: options.idleMinutes } }));
  await fs.writeFile(path.join(home, 'enabled.json'), JSON.stringify({ global: true, repos: [] }));
  const hook = path.join(path.dirname(options.daemonBin), 'ai-zen-hook.cjs');
  const repos: Repo[] = [];
  try {
    for (let index = 0; index <= options.repos; index += 1) repos.push(await makeRepo(base, claudeHome, index, env));
    const [alone, ...twenty] = repos as [Repo, ...Repo[]];

    options.log('(r) one daemon, its session live');
    await startSession(alone, claudeHome, hook, env);
    const [onePid] = await daemonPids([alone], env);
    await pause(options.steadyMs);
    const one = (await memory(onePid!)).rss;
    await stopDaemon(alone, env);
    endSession(alone);

    options.log(`(r) ${twenty.length} daemons, every session live`);
    for (const repo of twenty) await startSession(repo, claudeHome, hook, env);
    const pids = await daemonPids(twenty, env);
    await pause(options.steadyMs);
    const allLive = await totalRss(pids);

    options.log(`(r) ${twenty.length - 1} sessions end; waiting for their daemons to exit idle`);
    const ended = performance.now();
    for (const repo of twenty.slice(1)) endSession(repo);
    const exited = await pollUntil(
      async () => (await Promise.all(twenty.slice(1).map((repo) => isLockHeld(daemonLockName(repo.root), { env })))).every((held) => !held),
      { timeoutMs: options.idleMinutes * 60_000 + 120_000, intervalMs: 250 },
    );
    const exitMs = performance.now() - ended;
    const after = await totalRss(pids);
    const ratio = after.total / one;
    return {
      id: 'r',
      title: TITLE,
      notRun: null,
      figures: [
        {
          name: `${twenty.length} enabled repos after the idle period, one session still live: total RSS of the daemons running (how many)`,
          measured: `${formatBytes(after.total)} (${after.running})`,
          target: '—',
          pass: null,
        },
        { name: 'one daemon with a live session, same run (baseline)', measured: formatBytes(one), target: '—', pass: null },
        {
          name: `${twenty.length} idle repos against one daemon`,
          measured: `${ratio.toFixed(2)}×`,
          target: `≤ ${TARGET_RATIO}×`,
          pass: exited && ratio <= TARGET_RATIO,
        },
        {
          name: `${twenty.length} repos, every session live (what idle exit saves): total RSS (running)`,
          measured: `${formatBytes(allLive.total)} (${allLive.running}), ${(allLive.total / one).toFixed(1)}× one`,
          target: '—',
          pass: null,
        },
        {
          name: `from the sessions' end to the last idle daemon's exit (idle time ${options.idleMinutes * 60} s)`,
          measured: exited ? `${(exitMs / 1000).toFixed(1)} s` : 'not within the deadline',
          target: '—',
          pass: null,
        },
      ],
      notes: [
        `One AI_ZEN_HOME, enable --global, daemon.idleExitMinutes ${options.idleMinutes} in the user config (default 30: the bench cannot wait that long; the exit is the same).`,
        'Each daemon started by the SessionStart hook (dist/cli/ai-zen-hook.cjs, what the shim runs) as a session start starts it; each session a Claude Code transcript and a live `sleep` process named in its session registry; a session ends when that process is killed.',
        `RSS read ${options.steadyMs / 1000} s after every daemon answered status.`,
      ],
    };
  } finally {
    for (const repo of repos) {
      endSession(repo);
      await stopDaemon(repo, env).catch(() => {});
    }
    await fs.rm(base, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function makeRepo(base: string, claudeHome: string, index: number, env: NodeJS.ProcessEnv): Promise<Repo> {
  const root = path.join(base, `r${index}`);
  await fs.mkdir(root);
  const git = (...args: string[]) => run('git', args, { cwd: root, env });
  await git('init', '-q', '-b', 'main');
  await git('-c', 'user.name=bench', '-c', 'user.email=bench@ai-zen.invalid', 'commit', '-q', '--allow-empty', '-m', 'initial commit');
  const session = `${String(index).padStart(8, '0')}-2222-4333-8444-555555555555`;
  await writeClaudeTranscript(claudeHome, root, session);
  return { root, session, agent: null };
}

/** The agent's process appears in Claude Code's registry, then its SessionStart hook runs in the repo. */
async function startSession(repo: Repo, claudeHome: string, hook: string, env: NodeJS.ProcessEnv): Promise<void> {
  const agent = spawn('sleep', ['3600'], { stdio: 'ignore' });
  repo.agent = agent;
  await fs.writeFile(path.join(claudeHome, 'sessions', `${agent.pid}.json`), JSON.stringify({ pid: agent.pid, sessionId: repo.session }));
  const transcript = path.join(claudeHome, 'projects', claudeSlug(repo.root), `${repo.session}.jsonl`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [hook, 'claude', 'SessionStart'], { cwd: repo.root, env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.end(
      JSON.stringify({ session_id: repo.session, transcript_path: transcript, cwd: repo.root, hook_event_name: 'SessionStart' }),
    );
  });
}

function endSession(repo: Repo): void {
  repo.agent?.kill('SIGKILL');
  repo.agent = null;
}

/** Each repo's daemon pid, once it answers status ready. */
async function daemonPids(repos: readonly Repo[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const pids: number[] = [];
  for (const repo of repos) {
    let pid: number | null = null;
    const ready = await pollUntil(
      async () => {
        const status = (await ask(repo.root, env, 'status')) as { pid?: number; ready?: boolean } | null;
        if (status?.ready && typeof status.pid === 'number') pid = status.pid;
        return pid !== null;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    if (!ready || pid === null) throw new Error(`the daemon of ${repo.root} did not answer within 120 s`);
    pids.push(pid);
  }
  return pids;
}

async function totalRss(pids: readonly number[]): Promise<{ total: number; running: number }> {
  let total = 0;
  let running = 0;
  for (const pid of pids) {
    const rss = await memory(pid).then(
      (usage) => usage.rss,
      () => null,
    );
    if (rss === null || !Number.isFinite(rss)) continue;
    total += rss;
    running += 1;
  }
  return { total, running };
}

async function ask(root: string, env: NodeJS.ProcessEnv, type: 'status' | 'stop'): Promise<unknown> {
  let client;
  try {
    client = await connectIpc({ socketPath: socketPathFor(root, { env }), repoRoot: root, timeoutMs: 2000 });
  } catch {
    return null;
  }
  try {
    return await client.request(type, undefined, { timeoutMs: 10_000 }).catch(() => null);
  } finally {
    await client.close().catch(() => {});
  }
}

async function stopDaemon(repo: Repo, env: NodeJS.ProcessEnv): Promise<void> {
  if (!(await isLockHeld(daemonLockName(repo.root), { env }))) return;
  await ask(repo.root, env, 'stop');
  await pollUntil(async () => !(await isLockHeld(daemonLockName(repo.root), { env })), { timeoutMs: 30_000, intervalMs: 100 });
}
