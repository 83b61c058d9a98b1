// Ownership: a live ai-zen process holds an OS lock on the session it has open; the
// daemon leaves that session to it, and no second process can open it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AiZenError } from '../../src/errors.js';
import { isLockHeld, sessionLockName } from '../../src/lock/os-lock.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { startSessionOwner } from './session-owner.js';

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

  it('D1 a session open in a live process cannot be opened by another: one clear line', async () => {
    const started = await startSessionOwner(repo.root, { create: 1000 });
    if (!started.ok) throw new Error(started.error);
    const { owner } = started;
    try {
      expect(await isLockHeld(sessionLockName(owner.file))).toBe(true);
      const error = await ConversationContext.open({ paths, id: owner.id }).catch((e: unknown) => e);
      expect(AiZenError.isInstance(error)).toBe(true);
      expect((error as AiZenError).code).toBe('session');
      expect((error as AiZenError).message).toBe(
        `session ${owner.id.slice(0, 8)} is open in another ai-zen process (pid ${owner.child.pid})`,
      );
    } finally {
      await owner.kill();
    }
  });

  it('D1 kill -9 of the owner leaves nothing that blocks the next open', async () => {
    const started = await startSessionOwner(repo.root, { create: 1000 });
    if (!started.ok) throw new Error(started.error);
    await started.owner.usage(10);
    await started.owner.kill();
    expect(await isLockHeld(sessionLockName(started.owner.file))).toBe(false);
    const opened = await ConversationContext.open({ paths, id: started.owner.id });
    try {
      expect(opened.lastUsage?.prompt_tokens).toBe(10);
    } finally {
      await opened.context.close();
    }
  });

  it('D1 another process is refused while this one has the session open, and let in after close', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 100 });
    const refused = await startSessionOwner(repo.root, { open: context.currentId });
    expect(refused).toEqual({
      ok: false,
      error: `session ${context.currentId.slice(0, 8)} is open in another ai-zen process (pid ${process.pid})`,
    });
    await context.close();
    expect(await isLockHeld(sessionLockName(context.sessionFile))).toBe(false);
    const admitted = await startSessionOwner(repo.root, { open: context.currentId });
    if (!admitted.ok) throw new Error(admitted.error);
    await admitted.owner.kill();
  });
});
