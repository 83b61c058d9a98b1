// kill -9 at each stage of migrate() ("order is what keeps history alive"): the old
// session stays whole and `--continue` (openLatest) lands in a usable session, old or new.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { MIGRATION_STAGES, type MigrationStage } from '../../src/session/pause-hook.js';
import { SessionStore } from '../../src/session/store.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, 'fixtures', 'migrate-child.mjs');
const BUILT = path.join(here, '..', '..', 'dist', 'session', 'conversation-context.js');
const OLD_ID = 'c0c0c0c0-0000-4000-8000-000000000001';
const NEW_ID = 'd1d1d1d1-0000-4000-8000-000000000002';
const TURNS = 40;
// header + system + 3 lines per turn
const OLD_LINES_BEFORE_MIGRATION = 2 + 3 * TURNS;

/** Where the migration stands once the child is killed at `stage`. */
const SWITCHED: Record<MigrationStage, boolean> = {
  'before-archive': false,
  'after-archive': false,
  'after-new-session': false,
  'after-migrated-line': true,
  'after-pointer': true,
};

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function tempFiles(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.tmp'));
}

describe('kill -9 during migrate() loses no history (R26)', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first`);
  });
  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    child = undefined;
    await repo.cleanup();
  });

  function start(pauseAt?: MigrationStage): { child: ChildProcess; signalFile: string; stderr: () => string } {
    const signalFile = path.join(repo.home, 'paused-at');
    let stderr = '';
    const spawned = spawn(process.execPath, [CHILD, repo.root, OLD_ID, NEW_ID, String(TURNS)], {
      env: {
        ...process.env,
        AI_ZEN_HOME: repo.home,
        AI_ZEN_TEST_PAUSE_AT: pauseAt,
        AI_ZEN_TEST_PAUSE_FILE: signalFile,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    spawned.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child = spawned;
    return { child: spawned, signalFile, stderr: () => stderr };
  }

  async function oldSessionIsWhole(expectMigratedLine: boolean): Promise<void> {
    const content = await new SessionStore(paths).read(OLD_ID);
    expect(content.skipped).toEqual([]);
    expect(content.lines).toHaveLength(OLD_LINES_BEFORE_MIGRATION - 1 + (expectMigratedLine ? 1 : 0));
    const messages = content.lines.filter((line) => line.type === 'message');
    expect(messages).toHaveLength(1 + 2 * TURNS);
    expect(messages.at(-1)).toMatchObject({ message: { content: `answer ${TURNS - 1} `.repeat(50) } });
    if (expectMigratedLine) expect(content.lines.at(-1)).toMatchObject({ type: 'migrated', newId: NEW_ID });
  }

  it('runs to the end without a pause (the fixture itself works)', async () => {
    const run = start();
    const { code } = await exited(run.child);
    expect(run.stderr()).toBe('');
    expect(code).toBe(0);
    expect(await fs.readFile(run.signalFile, 'utf8')).toBe('done');
    await oldSessionIsWhole(true);
    expect(await new SessionStore(paths).readLatestPointer()).toEqual({ id: NEW_ID, previousId: OLD_ID });
  });

  for (const stage of MIGRATION_STAGES) {
    it(`R26 kill -9 at ${stage}: the old session is whole and --continue opens a usable session`, async () => {
      const run = start(stage);
      await waitFor(async () => (await fs.readFile(run.signalFile, 'utf8').catch(() => '')) === stage, {
        message: `child never paused at ${stage}: ${run.stderr()}`,
      });
      run.child.kill('SIGKILL');
      expect((await exited(run.child)).signal).toBe('SIGKILL');

      // Startup: clean temp files, then --continue.
      const store = new SessionStore(paths);
      await store.cleanup();
      expect(await tempFiles(paths.sessions)).toEqual([]);
      expect(await tempFiles(paths.aiZen)).toEqual([]);

      await oldSessionIsWhole(SWITCHED[stage]);
      const opened = await ConversationContext.openLatest({ paths });
      expect(opened).not.toBeNull();
      const { context, messages, closed } = opened!;
      try {
        expect(closed).toBe(false);
        if (SWITCHED[stage]) {
          expect(context.currentId).toBe(NEW_ID);
          expect(messages).toHaveLength(2);
          expect(opened!.header.previousId).toBe(OLD_ID);
        } else {
          // The user carries on (or retries the migration) in the old session, history intact.
          expect(context.currentId).toBe(OLD_ID);
          expect(messages).toHaveLength(1 + 2 * TURNS);
        }
        await context.appendMessage({ role: 'user', content: 'after the crash' });
        await context.flush();
      } finally {
        await context.close();
      }
      const reread = await store.read(context.currentId);
      expect(reread.skipped).toEqual([]);
      expect(reread.lines.at(-1)).toEqual({ type: 'message', message: { role: 'user', content: 'after the crash' } });
    });
  }

  it('cleanup removes temp files a killed writer left, and leaves sessions and the pointer alone', async () => {
    const run = start();
    await exited(run.child);
    // A real process that is gone now: its pid names the leftovers, as a kill mid-write leaves them.
    const deadPid = run.child.pid!;
    const leftovers = [
      path.join(paths.sessions, `.${NEW_ID}.jsonl.${deadPid}-0123456789ab.tmp`),
      path.join(paths.aiZen, `.latest-session.json.${deadPid}-0123456789ab.tmp`),
    ];
    for (const file of leftovers) await fs.writeFile(file, '{"type":"session"');
    const sessionsBefore = (await fs.readdir(paths.sessions)).filter((name) => !name.endsWith('.tmp')).sort();
    await new SessionStore(paths).cleanup();
    for (const file of leftovers) expect(existsSync(file)).toBe(false);
    expect((await fs.readdir(paths.sessions)).sort()).toEqual(sessionsBefore);
    expect(await new SessionStore(paths).readLatestPointer()).toEqual({ id: NEW_ID, previousId: OLD_ID });
  });
});
