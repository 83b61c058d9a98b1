// X3: the folders of another agent's sessions appear while the daemon runs (Claude Code makes
// `projects/<slug>/` when a session starts in the repo). A folder made between the listing of its
// parent and that parent's stamp must still be found, even when no watch event comes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAgentsConfig } from '../../src/config/agents-config.js';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { claudeAgent } from '../../src/daemon/sources/claude-code/claude-agent.js';
import type { WatchFolder } from '../../src/daemon/watching/folder-watch.js';
import type { SessionUpdate } from '../../src/daemon/watching/session-source.js';
import { TranscriptWatchers } from '../../src/daemon/watching/transcript-watchers.js';
import { silentLogger } from '../../src/log/logger.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

/** What an overflowed inotify queue looks like: a watch that hears nothing, and no error. */
const deaf: WatchFolder = () => ({ close() {} });

describe('X3 transcript folders that appear while the daemon runs', () => {
  let repo: TempRepo;
  let watchers: TranscriptWatchers | null = null;
  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
  });
  afterEach(async () => {
    await watchers?.close();
    watchers = null;
    await repo.cleanup();
  });

  it('X3 a Claude Code slug folder made in the same clock tick as the listing that missed it is found by the next pass', async () => {
    const config = path.join(repo.home, 'claude');
    const projects = path.join(config, 'projects');
    await fs.mkdir(projects, { recursive: true });
    // A whole millisecond, so that setting it again below gives the very same time.
    const mtime = new Date();
    await fs.utimes(projects, mtime, mtime);
    const updates: SessionUpdate[] = [];
    const source = claudeAgent.createSource({
      root: repo.root,
      env: { CLAUDE_CONFIG_DIR: config },
      config: resolveAgentsConfig(undefined, undefined)['claude-code'],
    });
    watchers = new TranscriptWatchers({
      sources: [source],
      logger: silentLogger(),
      reconcileIntervalMs: 50,
      watchFolder: deaf,
      onUpdate: (update) => updates.push(update),
    });
    await watchers.start(); // lists projects/: no folder of this repo yet

    const slug = path.join(projects, claudeSlug(repo.root));
    await fs.mkdir(slug);
    const id = '1a2b3c4d-0000-4000-8000-000000000001';
    const line = {
      type: 'user',
      sessionId: id,
      cwd: repo.root,
      uuid: 'u1',
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: 'Plan the README changes' },
    };
    await fs.writeFile(path.join(slug, `${id}.jsonl`), `${JSON.stringify(line)}\n`);
    // The parent's time as a coarse clock can leave it: unchanged by the new folder.
    await fs.utimes(projects, mtime, mtime);

    await waitFor(() => updates.some((update) => update.state.sessionId === id), {
      timeoutMs: 10_000,
      message: 'the session in the folder made after the listing',
    });
    expect(watchers.states().map((state) => state.sessionId)).toContain(id);
  });
});
