// The 📊 facts describe the user's work — not ai-zen's own files, not the daemon's
// own handoff commits — and say where each port listens. A real repo with a real upstream.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { startListeningServer } from './listening-server.js';

describe('facts describe the user’s work', () => {
  it('.ai-zen/ internals and the handoff document are not untracked user files; handoff commits are told apart in "ahead"; ports show their bind address', async () => {
    await using remote = await makeTempRepo({ git: false });
    await using repo = await makeTempRepo();
    const bare = path.join(remote.root, 'origin.git');
    await repo.git('init', '-q', '--bare', bare);
    await repo.git('remote', 'add', 'origin', bare);
    await repo.git('push', '-q', '-u', 'origin', 'main');
    // One commit of the user's, one handoff commit of the daemon's (the doc alone).
    await fs.writeFile(path.join(repo.root, 'app.ts'), 'export {};\n');
    await repo.git('add', 'app.ts');
    await repo.git('commit', '-q', '-m', 'user work');
    await fs.mkdir(path.join(repo.root, '.ai-zen', 'handoffs'), { recursive: true });
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'handoffs', '20261202-120000-aaaaaaaa.md'), '# earlier handoff\n');
    await repo.git('add', '.ai-zen/handoffs/20261202-120000-aaaaaaaa.md');
    await repo.git('commit', '-q', '-m', 'handoff: aaaaaaaa (offline)');
    // ai-zen's own untracked files, the new handoff document, and one real untracked user file.
    await fs.mkdir(path.join(repo.root, '.ai-zen', 'sessions'), { recursive: true });
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'sessions', 'x.jsonl'), '{}\n');
    await fs.writeFile(path.join(repo.root, '.ai-zen', 'handoffs', '20261202-130000-bbbbbbbb.md'), '');
    await fs.writeFile(path.join(repo.root, 'notes.txt'), 'mine\n');
    await using server = await startListeningServer(repo.root);

    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig') };
    const facts = await createFactsProvider({ root: repo.root, env }).capture();
    const text = renderFacts(facts);
    expect(text).toContain('- Untracked (1): `notes.txt`');
    expect(text).not.toContain('.ai-zen');
    expect(text).toContain("(2 ahead (1 of them ai-zen's handoff commits), 0 behind)");
    if (process.platform === 'linux') {
      expect(text).toContain(`127.0.0.1:${server.port}`);
      if (server.port6 !== null) expect(text).toContain(`[::1]:${server.port6}`);
    }
  });
});
