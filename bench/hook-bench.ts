// Benchmark (h): what every agent turn pays — the hook the agent waits on (Claude Code's Stop,
// SessionStart and PreCompact, through the lean entry the shim runs) and Claude Code's statusline —
// against a bare `node -e 0` started in the same rounds (the floor of any hook written in Node);
// Stop and the statusline also as the agent runs them, `sh -c` through the stable shim.
// Each round spawns every case in turn, so the machine's load falls on all alike; a real daemon
// answers every request. Without NODE_EXTRA_CA_CERTS: every Node start pays for parsing that bundle.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { hookShimText, shellWord } from '../dist/cli/daemon/hook-shim.js';
import { socketPathFor } from '../dist/ipc/socket-path.js';
import { startDaemonProcess } from './daemon-process.js';
import type { Figure, ItemResult } from './results.js';
import { formatMs, median, percentile } from './statistics.js';
import { timedRun, writeClaudeTranscript } from './spawn-timing.js';
import { makeBenchProject } from './temp-project.js';

export interface HookBenchOptions {
  readonly daemonBin: string;
  readonly rounds: number;
  readonly log: (line: string) => void;
}

const TITLE = '(h) Every turn’s hook and the statusline, spawn to exit, against a bare node start';
const TARGET_RATIO = 1.3;
const WARMUP = 3;
const SESSION = 'c1b8a42a-0c27-414e-82ce-bf569a0fdf24';

interface Case {
  readonly args: readonly string[];
  readonly input: string;
  /** What is spawned: node unless said. */
  readonly command?: string;
}

export async function benchHooks(options: HookBenchOptions): Promise<ItemResult> {
  const project = await makeBenchProject('h');
  const claudeHome = path.join(project.home, 'claude');
  const env: NodeJS.ProcessEnv = { ...project.env, CLAUDE_CONFIG_DIR: claudeHome };
  delete env.NODE_EXTRA_CA_CERTS;
  const transcript = await writeClaudeTranscript(claudeHome, project.root, SESSION);
  const daemon = await startDaemonProcess({
    bin: options.daemonBin,
    root: project.root,
    env,
    outputFile: path.join(project.home, 'daemon.out'),
  });
  const bin = path.dirname(options.daemonBin);
  const hook = path.join(bin, 'ai-zen-hook.cjs');
  const statusline = path.join(bin, 'ai-zen-statusline.cjs');
  // The stable shim as ai-zen-daemon writes it, run as Claude Code runs a hook command: through sh -c.
  const shim = path.join(project.home, 'bin', 'ai-zen-daemon');
  await fs.mkdir(path.dirname(shim), { recursive: true });
  await fs.writeFile(shim, hookShimText(options.daemonBin, process.execPath), { mode: 0o755 });
  const throughShim = (words: string) => ['-c', `${shellWord(shim)} ${words}`];
  const hookInput = (event: string, extra: object = {}) =>
    JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: project.root, hook_event_name: event, ...extra });
  // What a hook on node:net alone costs: the daemon the Stop request the hook sends, exiting on its reply
  // (no stdin, no repo lookup, no socket name to hash); the lean entries use Node's pipe handle instead.
  const request = {
    v: 1,
    id: 'floor',
    type: 'agent-hook-input',
    params: { agent: 'claude', event: 'Stop', input: JSON.parse(hookInput('Stop', { stop_hook_active: false })) },
  };
  const floor = [
    `const socket = require('node:net').createConnection(${JSON.stringify(socketPathFor(project.root, { env }))});`,
    `socket.on('connect', () => socket.write(${JSON.stringify(`${JSON.stringify(request)}\f`)}));`,
    `socket.on('data', (data) => { if (String(data).includes('"ok":true')) require('node:fs').writeSync(1, 'answered'); process.exit(0); });`,
    "socket.on('error', () => process.exit(1));",
  ].join('\n');
  const statuslineInput = JSON.stringify({
    session_id: SESSION,
    transcript_path: transcript,
    cwd: project.root,
    model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
    workspace: { current_dir: project.root, project_dir: project.root },
    context_window: { context_window_size: 200000, used_percentage: 10, current_usage: { input_tokens: 20000 } },
  });
  const cases: Record<string, Case> = {
    bare: { args: ['-e', '0'], input: '' },
    floor: { args: ['-e', floor], input: '' },
    Stop: { args: [hook, 'claude', 'Stop'], input: hookInput('Stop', { stop_hook_active: false }) },
    SessionStart: { args: [hook, 'claude', 'SessionStart'], input: hookInput('SessionStart', { source: 'resume' }) },
    PreCompact: { args: [hook, 'claude', 'PreCompact'], input: hookInput('PreCompact', { trigger: 'auto' }) },
    statusline: { args: [statusline], input: statuslineInput },
    'Stop (shim)': { command: '/bin/sh', args: throughShim('hook claude Stop'), input: hookInput('Stop', { stop_hook_active: false }) },
    'statusline (shim)': { command: '/bin/sh', args: throughShim('statusline'), input: statuslineInput },
  };
  try {
    await daemon.waitForStatus((status) => status.ready && status.sessions.length > 0, 60_000);
    const names = Object.keys(cases);
    const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    // Each case's CPU time (user + system) summed over the rounds; null without /proc.
    const cpu: Record<string, number | null> = Object.fromEntries(names.map((name) => [name, 0]));
    const lines: Record<string, string> = {};
    for (let round = 0; round < WARMUP + options.rounds; round += 1) {
      for (const name of names) {
        const { args, input, command } = cases[name]!;
        const result = await timedRun(args, project.root, env, input, command);
        lines[name] = result.stdout.trim();
        if (round >= WARMUP) {
          samples[name]!.push(result.ms);
          cpu[name] = cpu[name] === null || result.cpuMs === null ? null : cpu[name]! + result.cpuMs;
        }
      }
      if (round % 20 === 0) options.log(`(h) round ${round + 1}/${WARMUP + options.rounds}`);
    }
    // The statusline's line proves the daemon answered it (not its no-daemon line).
    for (const name of ['statusline', 'statusline (shim)'])
      if (!lines[name]?.includes('hands off')) throw new Error(`the ${name} did not get the daemon's answer: ${lines[name]}`);
    if (lines.floor !== 'answered') throw new Error(`the node:net floor did not get the daemon's answer: ${lines.floor}`);
    const bare = samples.bare!;
    // CPU time moves less with the machine's load than wall time (a run that waits on the daemon waits
    // for the scheduler twice): told beside each wall figure, as a mean per run and its ratio.
    const cpuOf = (name: string) => {
      const total = cpu[name];
      const bareTotal = cpu.bare;
      if (total === null || total === undefined || bareTotal === null || bareTotal === undefined) return '';
      const mean = total / options.rounds;
      return name === 'bare' ? `; CPU ${formatMs(mean)}` : `; CPU ${formatMs(mean)}, ${(total / bareTotal).toFixed(2)}×`;
    };
    const figures: Figure[] = [
      {
        name: 'bare `node -e 0`: median (p95); CPU (user + system), mean',
        measured: `${formatMs(median(bare))} (${formatMs(percentile(bare, 0.95))})${cpuOf('bare')}`,
        target: '—',
        pass: null,
      },
    ];
    for (const name of names.filter((entry) => entry !== 'bare')) {
      const own = samples[name]!;
      const ratio = median(own) / median(bare);
      const ratio95 = percentile(own, 0.95) / percentile(bare, 0.95);
      if (name === 'floor') {
        figures.push({
          name: 'node:net alone sending the Stop request (a hook on node:net could not go under it): median (p95), × bare median (p95); CPU',
          measured: `${formatMs(median(own))} (${formatMs(percentile(own, 0.95))}), ${ratio.toFixed(2)}× (${ratio95.toFixed(2)}×)${cpuOf(name)}`,
          target: '—',
          pass: null,
        });
        continue;
      }
      figures.push({
        name: `${caseLabel(name)}: median (p95), × bare median (p95); CPU`,
        measured: `${formatMs(median(own))} (${formatMs(percentile(own, 0.95))}), ${ratio.toFixed(2)}× (${ratio95.toFixed(2)}×)${cpuOf(name)}`,
        target: `≤ ${TARGET_RATIO}× median`,
        pass: ratio <= TARGET_RATIO,
      });
    }
    return {
      id: 'h',
      title: TITLE,
      notRun: null,
      figures,
      notes: [
        `${options.rounds} rounds after ${WARMUP} warm-up rounds; each round spawns every case in turn with the JSON Claude Code sends on stdin, timed from spawn to exit, a real daemon answering.`,
        'NODE_EXTRA_CA_CERTS unset for every case (a corporate CA bundle costs every Node start alike).',
        "CPU: the user + system time of each run (this process's waited-for children, /proc/self/stat), its mean over the rounds and its ratio to the bare start's; the target is on the wall-clock median, which a loaded machine moves more.",
        '"Through the shim": `/bin/sh -c \'<AI_ZEN_HOME>/bin/ai-zen-daemon hook claude Stop\'`, as Claude Code runs a hook command: the shell, the shim script and the lean entry it runs.',
        `Lines printed: statusline "${lines.statusline}", SessionStart "${lines.SessionStart ?? ''}".`,
      ],
    };
  } finally {
    await daemon.stop().catch(() => {});
    await project.cleanup();
  }
}

function caseLabel(name: string): string {
  if (name === 'statusline') return 'statusline (lean entry)';
  if (name === 'statusline (shim)') return 'statusline through the shim, as Claude Code runs it';
  if (name.endsWith(' (shim)')) return `hook claude ${name.slice(0, -' (shim)'.length)} through the shim, as the agent runs it`;
  return `hook claude ${name} (lean entry)`;
}
