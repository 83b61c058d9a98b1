// One idle daemon of bench item (x): a real daemon (`start --foreground`) in a temp repo whose user
// home holds every agent's folders, empty unless `fill` puts other repos' sessions in them; its CPU
// over a window past the start-up tail, its RSS at the end of that window. The home is its own (HOME
// and each agent's variable), so the machine's own agents' sessions never count.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { daemonLogPath } from '../dist/daemon/process/daemon-logger.js';
import { startDaemonProcess } from './daemon-process.js';
import { cpuPercent, memory, sampleCpu } from './proc-usage.js';
import { pause } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

export interface IdleOptions {
  readonly daemonBin: string;
  readonly steadyAfterSpawnMs: number;
  readonly idleMs: number;
}

/** Where the daemon looks for each agent's sessions. */
export interface AgentFolders {
  /** CLAUDE_CONFIG_DIR (its `projects/` made, empty). */
  readonly claude: string;
  /** XDG_DATA_HOME: opencode's database is `opencode/opencode.db` in it (none made). */
  readonly dataHome: string;
  /** CLINE_DIR (its `data/sessions/` made, empty). */
  readonly clineDir: string;
}

export interface IdleCost {
  /** % of one core over the window (schedstat when the kernel has it). */
  readonly cpu: number;
  readonly rss: number;
  readonly peak: number;
  /** Whether the daemon had the SQLite library (libsql) loaded. */
  readonly sqliteLoaded: boolean;
}

/** The variables that would point the daemon at an agent's folder outside its own home. */
const AGENT_VARIABLES = [
  'CODEX_HOME',
  'COPILOT_HOME',
  'GEMINI_CLI_HOME',
  'QWEN_HOME',
  'QWEN_RUNTIME_DIR',
  'PI_CODING_AGENT_DIR',
  'CLINE_DATA_DIR',
  'CLINE_SESSION_DATA_DIR',
  'OPENCODE_CONFIG',
  'KILO_CONFIG',
  'XDG_CONFIG_HOME',
];

/** `fill` may hand back what to close once the daemon is measured (a writer kept open, as opencode keeps it). */
export async function idleCost(
  options: IdleOptions,
  name: string,
  fill: (folders: AgentFolders) => Promise<(() => void) | undefined>,
): Promise<IdleCost> {
  const project = await makeBenchProject(`x-${name}`);
  let release: (() => void) | undefined;
  try {
    const user = path.join(project.home, 'user');
    const folders: AgentFolders = {
      claude: path.join(user, '.claude'),
      dataHome: path.join(user, '.local', 'share'),
      clineDir: path.join(user, '.cline'),
    };
    await fs.mkdir(path.join(folders.claude, 'projects'), { recursive: true });
    await fs.mkdir(path.join(folders.clineDir, 'data', 'sessions'), { recursive: true });
    await fs.mkdir(folders.dataHome, { recursive: true });
    release = await fill(folders);
    const env: NodeJS.ProcessEnv = {
      ...project.env,
      HOME: user,
      CLAUDE_CONFIG_DIR: folders.claude,
      XDG_DATA_HOME: folders.dataHome,
      CLINE_DIR: folders.clineDir,
    };
    for (const variable of AGENT_VARIABLES) delete env[variable];
    const daemon = await startDaemonProcess({
      bin: options.daemonBin,
      root: project.root,
      env,
      outputFile: path.join(project.home, 'daemon.out'),
    });
    try {
      // Other repos' sessions are never this repo's: a daemon that lists one measures something else.
      const sessions = await daemon.waitForReadyLine(120_000);
      if (sessions !== 0) throw new Error(`${name}: the daemon listed ${sessions} sessions of other repos`);
      await pause(options.steadyAfterSpawnMs);
      const from = await sampleCpu(daemon.pid);
      await pause(options.idleMs);
      const to = await sampleCpu(daemon.pid);
      const { rss, peak } = await memory(daemon.pid);
      const maps = await fs.readFile(`/proc/${daemon.pid}/maps`, 'utf8');
      const log = await fs.readFile(daemonLogPath(project.root), 'utf8');
      const failed = log.split('\n').find((line) => line.includes('"level":40') || line.includes('"level":50'));
      if (failed) throw new Error(`${name}: the daemon warned: ${failed.slice(0, 300)}`);
      const cpu = cpuPercent(from, to);
      return { cpu: cpu.sched ?? cpu.stat, rss, peak, sqliteLoaded: maps.includes('libsql') };
    } finally {
      await daemon.stop();
    }
  } finally {
    release?.();
    await project.cleanup();
  }
}
