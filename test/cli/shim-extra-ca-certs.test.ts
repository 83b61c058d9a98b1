// A lean entry (hook, statusline) run by the shim starts without NODE_EXTRA_CA_CERTS, which every
// Node start would otherwise parse for a process that makes no TLS connection; what the entry starts
// (here the statusline's --chain command) still gets it. A CA file that does not exist shows which
// process read it: Node warns about it on stderr at its start.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAEMON_SCRIPT, hookShimText } from '../../src/cli/daemon/hook-shim.js';

const WARNING = 'Ignoring extra certs';
let base: string;
let folder: string;
let shim: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-shim-ca-')));
  folder = path.join(base, 'project');
  await fs.mkdir(folder);
  shim = path.join(base, 'home', 'bin', 'ai-zen-daemon');
  await fs.mkdir(path.dirname(shim), { recursive: true });
  await fs.writeFile(shim, hookShimText(DAEMON_SCRIPT, process.execPath), { mode: 0o755 });
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function run(command: string, args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const ca = path.join(base, 'no-such-ca.pem');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, AI_ZEN_HOME: path.join(base, 'home'), NODE_EXTRA_CA_CERTS: ca };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: folder, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('the shim and NODE_EXTRA_CA_CERTS', () => {
  it('a Node started with it reads it (the warning this test looks for)', async () => {
    const bare = await run(process.execPath, ['-e', '0'], '');
    expect(bare.stderr).toContain(WARNING);
  });

  it('the statusline starts without it, and its --chain command gets it back', async () => {
    const input = JSON.stringify({ session_id: 's1', cwd: folder, context_window: { context_window_size: 200000, used_percentage: 60 } });
    const result = await run('/bin/sh', [shim, 'statusline', '--chain', 'printf "%s" "$NODE_EXTRA_CA_CERTS"'], input);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(WARNING);
    expect(result.stdout).toBe(`${path.join(base, 'no-such-ca.pem')} · ctx 60% · ai-zen off\n`);
  });

  it('a hook starts without it and still answers (no daemon: the full path, which starts processes of its own)', async () => {
    const result = await run(
      '/bin/sh',
      [shim, 'hook', 'claude', 'Stop'],
      JSON.stringify({ session_id: 's1', cwd: folder, hook_event_name: 'Stop' }),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(WARNING);
  });
});
