// A fresh temp git repo and a fresh fake model server for each test of the describe block that
// calls this, closed after it — the setup most CLI tests share.
import { afterEach, beforeEach } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

export interface RepoAndModel {
  readonly repo: TempRepo;
  readonly fake: FakeOpenAI;
}

export function freshRepoAndModel(): RepoAndModel {
  let repo: TempRepo | null = null;
  let fake: FakeOpenAI | null = null;
  beforeEach(async () => {
    repo = await makeTempRepo();
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake?.close();
    await repo?.cleanup();
  });
  return {
    get repo() {
      if (!repo) throw new Error('freshRepoAndModel: used outside a test');
      return repo;
    },
    get fake() {
      if (!fake) throw new Error('freshRepoAndModel: used outside a test');
      return fake;
    },
  };
}
