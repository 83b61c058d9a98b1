// What the per-turn benches (h, s, r) share: a Node run timed from spawn to exit, and the small
// Claude Code transcript their daemons watch (one request, one reply at 20k tokens).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';

/** `node <args>` (or `command <args>`) with `input` on its stdin: how long from spawn to exit, and what it printed. */
export function timedRun(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
  command: string = process.execPath,
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', () => resolve({ ms: performance.now() - start, stdout }));
    // A run that reads no stdin (a bare start, the node:net floor) may be gone before its end is written.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

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
