import { promises as fs } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { makeTempRepo } from '../support/temp-repo.js';
import { startFakeResponses, responsesReply } from '../support/fake-responses.js';
import { makeCodexHome, codexExec, listRollouts, runCodex } from '../support/codex-client.js';

test('explore resume', async () => {
  const repo = await makeTempRepo();
  const fake = await startFakeResponses();
  const home = await makeCodexHome(path.dirname(repo.root), { baseURL: fake.baseURL });
  fake.handle(() => responsesReply().text('ok').usage({ input_tokens: 5000, output_tokens: 10 }));
  await codexExec('first', { cwd: repo.root, home });
  const [file] = await listRollouts(home);
  const before = (await fs.readFile(file!, 'utf8')).split('\n').length;
  // Move it to an older day folder, as if it ran last week.
  const old = path.join(home.sessions, '2026', '11', '20');
  await fs.mkdir(old, { recursive: true });
  const moved = path.join(old, path.basename(file!));
  
  const r = await runCodex(['exec', '--skip-git-repo-check', 'resume', '--last', 'second'], { cwd: repo.root, home });
  console.log(r.code, r.stderr.slice(-800));
  const files = await listRollouts(home);
  console.log(files, before);
  for (const f of files) { const lines = (await fs.readFile(f, 'utf8')).trim().split('\n').map((l) => JSON.parse(l)); console.log(f, lines.length, lines.map((l) => l.type + '/' + (l.payload?.type ?? '')).join(' ')); }
}, 120000);
