import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AiZenError } from '../../src/errors.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { isSessionId, newSessionId } from '../../src/session/session-id.js';
import { SessionStore } from '../../src/session/store.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { memoryLogger } from '../support/memory-logger.js';

const EVIL = ['abc/../../..', '../../etc/passwd', 'abcdefgh/x', '', '.hidden-session', 'a\0bcdefghi', '/abs/olute'];

function isSessionError(error: unknown): boolean {
  return AiZenError.isInstance(error) && error.code === 'session';
}

describe('a session id is data, never a path', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
  });
  afterEach(() => repo.cleanup());

  it('new ids are valid ids and distinct', () => {
    const a = newSessionId();
    expect(isSessionId(a)).toBe(true);
    expect(a).not.toBe(newSessionId());
  });

  it('an invalid session id is refused by sessionFile, read, open and create', async () => {
    const store = new SessionStore(paths);
    for (const id of EVIL) {
      expect(isSessionId(id)).toBe(false);
      expect(() => store.sessionFile(id)).toThrow(AiZenError);
      expect(isSessionError(await store.read(id).catch((e: unknown) => e))).toBe(true);
      expect(isSessionError(await ConversationContext.open({ paths, id }).catch((e: unknown) => e))).toBe(true);
      const created = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => id }).catch(
        (e: unknown) => e,
      );
      expect(isSessionError(created)).toBe(true);
    }
    // Nothing was created anywhere: not in the project, not beside it.
    expect(await fs.readdir(repo.root)).toEqual([]);
    expect((await fs.readdir(path.dirname(repo.root))).sort()).toEqual(['home', 'repo']);
  });

  it('a latest pointer naming an invalid id is ignored and logged, never followed', async () => {
    await fs.mkdir(paths.aiZen, { recursive: true });
    await fs.writeFile(paths.latestPointer, JSON.stringify({ id: 'abc/../../..', previousId: null }));
    const log = memoryLogger();
    expect(await new SessionStore(paths, { logger: log.logger }).readLatestPointer()).toBeNull();
    expect(await ConversationContext.openLatest({ paths, logger: log.logger })).toBeNull();
    expect(log.at('warn')).not.toHaveLength(0);
  });

  it('a migrated line naming an invalid successor id is skipped, so openLatest stays on the session', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10 });
    const id = context.currentId;
    await context.appendMessage({ role: 'user', content: 'hi' });
    await context.close();
    await fs.appendFile(context.sessionFile, `${JSON.stringify({ type: 'migrated', at: 'now', newId: '../../x', path: 'doc.md' })}\n`);
    const opened = await ConversationContext.openLatest({ paths });
    await opened?.context.close();
    expect(opened?.context.currentId).toBe(id);
    expect(opened?.closed).toBe(false);
  });

  it('list() names only files that are valid sessions', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10 });
    await context.close();
    await fs.writeFile(path.join(paths.sessions, 'not an id.jsonl'), '');
    await fs.writeFile(path.join(paths.sessions, 'notes.txt'), '');
    expect(await new SessionStore(paths).list()).toEqual([context.currentId]);
  });
});
