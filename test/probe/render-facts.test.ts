import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { startListeningServer } from './listening-server.js';

describe('renderFacts', () => {
  it('D2 X2 the facts provider captures real git state and a real listener in one block', async () => {
    await using repo = await makeTempRepo();
    await repo.git('checkout', '-q', '-b', 'work');
    await using server = await startListeningServer(repo.root);
    const provider = createFactsProvider({
      root: repo.root,
      now: () => new Date('2025-01-02T03:04:05.000Z'),
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(repo.home, 'gitconfig') },
    });
    const captured = await provider.capture();
    expect(captured.capturedAt).toBe('2025-01-02T03:04:05.000Z');
    const text = renderFacts(captured);
    expect(text).toContain('- Branch: `work`, no upstream');
    expect(text).toContain('initial commit');
    expect(text).toContain('- Working tree: clean');
    if (process.platform === 'linux' || process.platform === 'darwin') {
      expect(text).toContain(`${server.pid} node 127.0.0.1:${server.port}`);
    }
  });
});
