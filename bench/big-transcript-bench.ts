// Benchmark (t): a big transcript of Claude Code, Codex, pi, Gemini CLI and Cline handed off by a
// real daemon (the offline document, by hand: `ai-zen-daemon handoff <id> --executor offline`). Its
// peak resident memory against a bare node process measured in the same run, and the handoff's time
// against `tail -c` reading the same file to its end: a handoff reads the transcript as a stream
// (pi's and Gemini's twice: the places of the lines it wants, then those lines).
import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';
import { shortId } from '../dist/short-id.js';
import { writeClineConversation, writeGeminiSession, writePiSession } from './big-session-fixtures.js';
import { type GeneratedTranscript, type Shape, writeClaudeTranscript, writeCodexRollout } from './big-transcript-fixture.js';
import { startDaemonProcess } from './daemon-process.js';
import { memory, sampleCpu } from './proc-usage.js';
import type { Figure, ItemResult } from './results.js';
import { pause } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

const run = promisify(execFile);

export interface BigTranscriptBenchOptions {
  readonly daemonBin: string;
  /** Each transcript's size. */
  readonly megabytes: number;
  readonly log: (line: string) => void;
}

const TITLE = '(t) A big transcript of Claude Code, Codex, pi, Gemini CLI and Cline handed off at bounded memory';
/**
 * pi (0.73) reads a session back whole into one string and Cline (3.0.65) writes its conversation as one
 * JSON.stringify: V8's strings end at 2^29 − 24 characters (~512 MiB), so neither client makes a bigger file
 * it can use. Claude Code, Codex and Gemini CLI append lines and read them back a line at a time: no such bound.
 */
const CLIENT_BOUND_MEGABYTES = 500;

/** Where one agent's session is, and how the daemon is told where to look. */
interface BigSession {
  readonly agent: string;
  readonly sessionId: string;
  /** Its file for a project (made ready: folders, a project's files), and the environment naming the agent's home. */
  place(project: { root: string; home: string }): Promise<{ file: string; env: NodeJS.ProcessEnv }>;
  write(file: string, shape: Shape): Promise<GeneratedTranscript>;
  /** The most the client itself writes and reads back; null: no bound. */
  readonly clientBoundMegabytes: number | null;
}

const AGENTS: readonly BigSession[] = [
  {
    agent: 'claude-code',
    sessionId: '7a1c0000-0000-4000-8000-000000000001',
    async place({ root, home }) {
      const claudeDir = path.join(home, 'claude');
      const folder = path.join(claudeDir, 'projects', claudeSlug(root));
      await fs.mkdir(folder, { recursive: true });
      return { file: path.join(folder, `${this.sessionId}.jsonl`), env: { CLAUDE_CONFIG_DIR: claudeDir } };
    },
    write: writeClaudeTranscript,
    clientBoundMegabytes: null,
  },
  {
    agent: 'codex',
    sessionId: '019a7a1c-0000-7000-8000-000000000002',
    async place({ home }) {
      const codexHome = path.join(home, 'codex');
      const folder = path.join(codexHome, 'sessions', '2026', '12', '05');
      await fs.mkdir(folder, { recursive: true });
      return { file: path.join(folder, `rollout-2026-12-05T07-00-00-${this.sessionId}.jsonl`), env: { CODEX_HOME: codexHome } };
    },
    write: writeCodexRollout,
    clientBoundMegabytes: null,
  },
  {
    agent: 'pi',
    sessionId: '7a1c0000-0000-4000-8000-000000000003',
    async place({ root, home }) {
      const piDir = path.join(home, 'pi');
      // pi's own folder name for a working directory (pi-paths.ts).
      const folder = path.join(piDir, 'sessions', `--${root.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
      await fs.mkdir(folder, { recursive: true });
      return { file: path.join(folder, `2026-12-05T07-00-00-000Z_${this.sessionId}.jsonl`), env: { PI_CODING_AGENT_DIR: piDir } };
    },
    write: writePiSession,
    clientBoundMegabytes: CLIENT_BOUND_MEGABYTES,
  },
  {
    agent: 'gemini',
    sessionId: '7a1c0000-0000-4000-8000-000000000004',
    async place({ root, home }) {
      const geminiHome = path.join(home, 'gemini');
      const project = path.join(geminiHome, '.gemini', 'tmp', 'repo');
      await fs.mkdir(path.join(project, 'chats'), { recursive: true });
      await fs.writeFile(path.join(project, '.project_root'), root);
      return {
        file: path.join(project, 'chats', `session-2026-12-05T07-00-${this.sessionId.slice(0, 8)}.jsonl`),
        env: { GEMINI_CLI_HOME: geminiHome },
      };
    },
    write: writeGeminiSession,
    clientBoundMegabytes: null,
  },
  {
    agent: 'cline',
    sessionId: '1796469744464_bench',
    async place({ root, home }) {
      const clineDir = path.join(home, 'cline');
      const folder = path.join(clineDir, 'data', 'sessions', this.sessionId);
      await fs.mkdir(folder, { recursive: true });
      const manifest = { version: 1, session_id: this.sessionId, source: 'cli', pid: 20_978, started_at: '2026-12-05T07:00:00.000Z' };
      const fields = {
        status: 'completed',
        interactive: false,
        provider: 'openai-compatible',
        model: 'gpt-4.1',
        cwd: root,
        workspace_root: root,
      };
      await fs.writeFile(
        path.join(folder, `${this.sessionId}.json`),
        `${JSON.stringify({ ...manifest, ...fields, prompt: 'fix the failing test' }, null, 2)}\n`,
      );
      return { file: path.join(folder, `${this.sessionId}.messages.json`), env: { CLINE_DIR: clineDir } };
    },
    write: writeClineConversation,
    clientBoundMegabytes: CLIENT_BOUND_MEGABYTES,
  },
];
/** The daemon's resident memory through the whole handoff stays under this. */
const RSS_TARGET_BYTES = 150 * 1024 * 1024;
/** Status requests measured after the first. */
const STATUS_ROUNDS = 10;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

/** A bare node process's resident memory once it idles: what any daemon costs before its own work. */
async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await pause(1000);
    return (await memory(child.pid!)).rss;
  } finally {
    child.kill('SIGKILL');
  }
}

/** How long `tail -c <size>` takes to read the file to its end (into /dev/null). */
async function tailSeconds(file: string, bytes: number): Promise<number> {
  const started = performance.now();
  await run('sh', ['-c', `tail -c ${bytes} "$1" > /dev/null`, 'tail', file]);
  return (performance.now() - started) / 1000;
}

interface Measured {
  readonly agent: string;
  readonly transcript: GeneratedTranscript;
  readonly peakRss: number;
  readonly rssAfterStart: number;
  readonly handoffSeconds: number;
  readonly tailSeconds: number;
  readonly documentBytes: number;
  readonly unchanged: boolean;
  /** The daemon's CPU time per `status` once it had answered one. */
  readonly statusCpuMs: number;
}

async function handOff(options: BigTranscriptBenchOptions, session: BigSession): Promise<Measured> {
  const { agent, sessionId } = session;
  const project = await makeBenchProject(`t-${agent}`);
  try {
    const { file, env: agentEnv } = await session.place(project);
    const megabytes = Math.min(options.megabytes, session.clientBoundMegabytes ?? Number.POSITIVE_INFINITY);
    const shape = { root: project.root, sessionId, bytes: megabytes * 1024 * 1024 };
    options.log(`(t) writing a ${megabytes} MB ${agent} transcript`);
    const transcript = await session.write(file, shape);
    const before = await fs.stat(file);
    const env = { ...project.env, ...agentEnv };
    const daemon = await startDaemonProcess({
      bin: options.daemonBin,
      root: project.root,
      env,
      outputFile: path.join(project.home, 'daemon.out'),
    });
    let peak = 0;
    const sampler = setInterval(() => {
      memory(daemon.pid)
        .then((usage) => (peak = Math.max(peak, usage.rss, usage.peak)))
        .catch(() => {});
    }, 100);
    try {
      await daemon.waitForStatus((status) => status.sessions.some((session) => session.id === sessionId), 30 * 60_000);
      const rssAfterStart = (await memory(daemon.pid)).rss;
      // Each status asks which session continued which: the transcript was read once, at the first.
      const cpuBefore = await sampleCpu(daemon.pid);
      for (let index = 0; index < STATUS_ROUNDS; index += 1) await daemon.waitForStatus(() => true, 60_000);
      const statusCpuMs = (((await sampleCpu(daemon.pid)).schedSeconds ?? 0) - (cpuBefore.schedSeconds ?? 0)) * 1000;
      options.log(`(t) ${agent}: daemon read the transcript, ${mib(rssAfterStart)} resident; handing off`);
      const started = performance.now();
      const { stdout } = await run(process.execPath, [options.daemonBin, 'handoff', shortId(sessionId), '--executor', 'offline'], {
        cwd: project.root,
        env,
        maxBuffer: 1024 * 1024,
      });
      const handoffSeconds = (performance.now() - started) / 1000;
      const usage = await memory(daemon.pid);
      peak = Math.max(peak, usage.rss, usage.peak);
      const document = stdout.split('\n')[0]!;
      const documentBytes = (await fs.stat(path.join(project.root, document))).size;
      const after = await fs.stat(file);
      return {
        agent,
        statusCpuMs: statusCpuMs / STATUS_ROUNDS,
        transcript,
        peakRss: peak,
        rssAfterStart,
        handoffSeconds,
        tailSeconds: await tailSeconds(file, transcript.bytes),
        documentBytes,
        unchanged: after.size === before.size && after.mtimeMs === before.mtimeMs,
      };
    } finally {
      clearInterval(sampler);
      await daemon.stop();
    }
  } finally {
    await project.cleanup();
  }
}

export async function benchBigTranscript(options: BigTranscriptBenchOptions): Promise<ItemResult> {
  const bare = await bareNodeRss();
  const figures: Figure[] = [{ name: 'bare node process, resident', measured: mib(bare), target: '—', pass: null }];
  const notes: string[] = [];
  for (const session of AGENTS) {
    const { agent } = session;
    const measured = await handOff(options, session);
    const { transcript } = measured;
    figures.push(
      {
        name: `${agent}: daemon peak resident memory, ${(transcript.bytes / 1024 ** 3).toFixed(2)} GiB transcript`,
        measured: `${mib(measured.peakRss)} (${(measured.peakRss / bare).toFixed(1)}× bare node)`,
        target: `< ${mib(RSS_TARGET_BYTES)}`,
        pass: measured.peakRss < RSS_TARGET_BYTES,
      },
      {
        name: `${agent}: handoff (offline document) against tail -c of the same file`,
        measured: `${measured.handoffSeconds.toFixed(1)} s against ${measured.tailSeconds.toFixed(1)} s (${(measured.handoffSeconds / measured.tailSeconds).toFixed(1)}×)`,
        target: '—',
        pass: null,
      },
      { name: `${agent}: transcript left as it was`, measured: measured.unchanged ? 'yes' : 'no', target: 'yes', pass: measured.unchanged },
      {
        name: `${agent}: daemon CPU per status, after the first (${STATUS_ROUNDS} asked)`,
        measured: `${measured.statusCpuMs.toFixed(1)} ms`,
        target: '—',
        pass: null,
      },
    );
    notes.push(
      `${agent}: ${(transcript.bytes / 1024 ** 2).toFixed(0)} MiB${options.megabytes > (session.clientBoundMegabytes ?? options.megabytes) ? ' (about the most the client itself writes and reads back: one string of at most ~512 MiB)' : ''}, ${transcript.lines.toLocaleString('en')} ${agent === 'cline' ? 'messages' : 'lines'}, ${transcript.requests} requests, ${transcript.commands.toLocaleString('en')} distinct commands; the daemon held ${mib(measured.rssAfterStart)} once it had read the transcript at start; the document is ${(measured.documentBytes / 1024).toFixed(0)} KiB.`,
    );
  }
  notes.push(
    'Peak resident memory is the daemon’s VmHWM (and VmRSS sampled every 100 ms) from its start through the handoff: the start’s read of the transcript by the watcher included.',
    'The transcripts are generated (bench/big-transcript-fixture.ts) in the clients’ shapes; the handoff is `ai-zen-daemon handoff <id> --executor offline`, timed from the command’s start to its answer.',
  );
  return { id: 't', title: TITLE, notRun: null, figures, notes };
}
