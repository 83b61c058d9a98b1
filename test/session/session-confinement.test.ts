import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AiZenError } from '../../src/errors.js';
import { projectPaths, type ProjectPaths } from '../../src/paths.js';
import { ConversationContext } from '../../src/session/conversation-context.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

const run = promisify(execFile);
const ID = 'e2e2e2e2-0000-4000-8000-000000000003';

function code(error: unknown): string | undefined {
  return AiZenError.isInstance(error) ? error.code : undefined;
}

describe('session files never lead out of the project', () => {
  let repo: TempRepo;
  let paths: ProjectPaths;
  let outside: string;

  beforeEach(async () => {
    repo = await makeTempRepo({ git: false });
    paths = projectPaths(repo.root);
    outside = path.join(path.dirname(repo.root), 'outside');
    await fs.mkdir(outside);
  });
  afterEach(() => repo.cleanup());

  it('a symlinked .ai-zen/sessions folder pointing outside is refused and nothing is written there', async () => {
    await fs.mkdir(paths.aiZen);
    await fs.symlink(outside, paths.sessions);
    const error = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID }).catch((e: unknown) => e);
    expect(code(error)).toBe('confinement');
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('a session file that is a symlink to a file outside is never appended to', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID });
    await context.close();
    const target = path.join(outside, 'victim.jsonl');
    await fs.copyFile(context.sessionFile, target);
    const before = await fs.readFile(target, 'utf8');
    await fs.rm(context.sessionFile);
    await fs.symlink(target, context.sessionFile);
    const error = await ConversationContext.open({ paths, id: ID }).catch((e: unknown) => e);
    expect(code(error)).toBe('confinement');
    expect(await fs.readFile(target, 'utf8')).toBe(before);
  });

  it('a symlinked latest pointer pointing outside is not overwritten', async () => {
    await fs.mkdir(paths.aiZen);
    const target = path.join(outside, 'pointer.json');
    await fs.writeFile(target, 'untouched');
    await fs.symlink(target, paths.latestPointer);
    const error = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID }).catch((e: unknown) => e);
    expect(code(error)).toBe('confinement');
    expect(await fs.readFile(target, 'utf8')).toBe('untouched');
  });

  it('a FIFO in place of a session file is refused instead of hanging', async () => {
    const context = await ConversationContext.create({ paths, model: 'm', maxContextTokens: 10, newId: () => ID });
    await context.close();
    await fs.rm(context.sessionFile);
    await run('mkfifo', [context.sessionFile]);
    const error = await ConversationContext.open({ paths, id: ID }).catch((e: unknown) => e);
    expect(code(error)).toBe('session');
  });
});
