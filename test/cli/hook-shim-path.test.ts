// The hook shim, once the ai-zen it names is gone, looks for an ai-zen-daemon on the PATH: never in a
// relative entry, an empty one (the current folder) or one inside the folder the agent runs the hook
// in, where a cloned repo's node_modules/.bin/ai-zen-daemon would run as the hook. The shim is run as
// the agent runs it, by /bin/sh, in a repo that ships such a file.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookShimText } from '../../src/cli/daemon/hook-shim.js';

let base: string;
let repo: string;
let shim: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-shim-path-')));
  repo = path.join(base, 'cloned-repo');
  shim = path.join(base, 'home', 'bin', 'ai-zen-daemon');
  await fs.mkdir(path.dirname(shim), { recursive: true });
  // The ai-zen the shim named has moved away.
  await fs.writeFile(shim, hookShimText(path.join(base, 'gone', 'dist', 'cli', 'ai-zen-daemon.js'), process.execPath), { mode: 0o755 });
  // The repo's own look-alike: it leaves a mark when it runs.
  for (const folder of [path.join(repo, 'node_modules', '.bin'), repo]) {
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, 'ai-zen-daemon'), `#!/bin/sh\necho ran >> ${path.join(base, 'repo-ran')}\necho REPO\n`, {
      mode: 0o755,
    });
  }
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function runShim(PATH: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', [shim, ...args], { cwd: repo, env: { PATH }, stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    // A stand-in that never reads its input may exit before it is written: that is no failure of the shim.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify({ transcript_path: '/x.jsonl', cwd: repo }));
  });
}

describe('the hook shim’s PATH fallback', () => {
  it('never runs a cloned repo’s ai-zen-daemon: not from node_modules/.bin (relative or absolute), ".", or an empty PATH entry', async () => {
    const system = '/usr/bin:/bin';
    for (const PATH of [
      `node_modules/.bin:${system}`,
      `.:${system}`,
      `:${system}`,
      `${system}:`,
      `${path.join(repo, 'node_modules', '.bin')}:${system}`,
      `${repo}:${system}`,
    ]) {
      const result = await runShim(PATH, ['hook', 'claude', 'SessionStart']);
      expect(result.code, PATH).toBe(0);
      expect(result.stdout, PATH).not.toContain('REPO');
      expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext, PATH).toContain('NOT protected');
    }
    await expect(fs.stat(path.join(base, 'repo-ran'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('still runs an ai-zen-daemon installed in an absolute PATH folder outside the repo', async () => {
    const installed = path.join(base, 'global', 'bin');
    await fs.mkdir(installed, { recursive: true });
    await fs.writeFile(path.join(installed, 'ai-zen-daemon'), '#!/bin/sh\necho "INSTALLED $*"\n', { mode: 0o755 });
    const result = await runShim(`node_modules/.bin:${installed}:/usr/bin:/bin`, ['hook', 'claude', 'Stop']);
    expect(result).toEqual({ code: 0, stdout: 'INSTALLED hook claude Stop\n' });
  });
});
