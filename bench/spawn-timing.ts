// What the per-turn benches (h, s, r) share: a Node run timed from spawn to exit, and the small
// Claude Code transcript their daemons watch (one request, one reply at 20k tokens).
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';

/**
 * `node <args>` (or `command <args>`) with `input` on its stdin: how long from spawn to exit, the CPU
 * time it used (user + system, null without /proc), and what it printed.
 */
export function timedRun(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
  command: string = process.execPath,
): Promise<{ ms: number; cpuMs: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuMs();
    const start = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    // By 'close' the child has been waited for, so its CPU time is in this process's children's.
    child.on('close', () => {
      const ms = performance.now() - start;
      const cpuAfter = childrenCpuMs();
      resolve({ ms, cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, stdout });
    });
    // A run that reads no stdin (a bare start, the node:net floor) may be gone before its end is written.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/**
 * The CPU time of this process's children that have been waited for (cutime + cstime, Linux), in ms.
 * Shown in 10 ms ticks but kept in nanoseconds by the kernel: a sum over many runs is exact to 10 ms,
 * so a mean over 100 runs to 0.1 ms. A child still running (the daemon) is not in it.
 */
function childrenCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of the file (cutime, cstime); index 13 and 14 after the command name.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux that runs Node. */
const TICKS_PER_SECOND = 100;

/** A Claude Code session of `root` under `claudeHome`: one request and its reply; the transcript's path. */
export async function writeClaudeTranscript(claudeHome: string, root: string, session: string): Promise<string> {
  const folder = path.join(claudeHome, 'projects', claudeSlug(root));
  await fs.mkdir(folder, { recursive: true });
  const transcript = path.join(folder, `${session}.jsonl`);
  const line = (entry: object) => `${JSON.stringify({ cwd: root, sessionId: session, timestamp: new Date().toISOString(), ...entry })}\n`;
  await fs.writeFile(
    transcript,
    line({ type: 'user', message: { role: 'user', content: 'Fix the parser' } }) +
      line({
        type: 'assistant',
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'Looking at it.' }],
          usage: { input_tokens: 20_000, output_tokens: 20 },
        },
      }),
  );
  return transcript;
}
