// Ownership within one process: the OS lock on the session moves with a migration (what another
// process sees of that lock is in session-ownership.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLockHeld, sessionLockName } from '../../src/lock/os-lock.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

describe('D1 session ownership through an OS-held lock', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
  });
  afterEach(async () => {
    await repo.cleanup();
  });

  it('D1 migrate moves ownership to the new session and releases the old one', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 100 });
    const oldFile = context.sessionFile;
    await context.appendMessage({ role: 'system', content: 'rules' }, { definition: true });
    await context.migrate({
      definitionMessages: [{ role: 'system', content: 'rules' }],
      breakpoint: { role: 'user', content: 'doc.md' },
      docPath: 'doc.md',
    });
    try {
      expect(context.sessionFile).not.toBe(oldFile);
      expect(await isLockHeld(sessionLockName(context.sessionFile))).toBe(true);
      expect(await isLockHeld(sessionLockName(oldFile))).toBe(false);
    } finally {
      await context.close();
    }
    expect(await isLockHeld(sessionLockName(context.sessionFile))).toBe(false);
  });
});
