// The fast tier's guard (a setup file of the `fast` project, vitest.config.ts): every way to start
// a child process throws, and a test that tried fails even if the code under test swallowed the
// throw. So a test that starts git, node, the CLI, a daemon or an agent client cannot sit in the
// fast tier unseen: it fails there, and its file belongs in the other tier (a name without `.fast`).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach } from 'vitest';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** What the current test tried to start (cleared after each test). */
const attempts: string[] = [];

function refuse(starter: string, command: unknown): never {
  const what = `${starter}(${JSON.stringify(String(command))})`;
  attempts.push(what);
  throw new Error(
    `the fast tier starts no child process, and this test called ${what}: ` +
      'name its file *.test.ts instead of *.fast.test.ts (the tier that may spawn), or keep the test in-process',
  );
}

const writable = childProcess as unknown as Record<string, unknown>;
for (const starter of STARTERS) {
  writable[starter] = (command: unknown) => refuse(starter, command);
}
// `import { spawn } from 'node:child_process'` reads the ES module's own bindings: update them too.
syncBuiltinESMExports();

afterEach(() => {
  const tried = attempts.splice(0);
  if (tried.length > 0) throw new Error(`the fast tier starts no child process; this test tried: ${tried.join(', ')}`);
});
