import { promises as fs } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { makeTempRepo } from '../support/temp-repo.js';
import { startFakeResponses, responsesReply } from '../support/fake-responses.js';
import { makeCodexHome, codexExec, listRollouts, runCodex } from '../support/codex-client.js';

test('explore', async () => {
  const repo = await makeTempRepo();
  const fake = await startFakeResponses();
  const home = await makeCodexHome(path.dirname(repo.root), { baseURL: fake.baseURL, model: process.env.M ?? 'gpt-5.5', extraConfig: (process.env.X ?? '').split(';').filter(Boolean) });
  const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** End Patch\n';
  fake.enqueue(
    responsesReply().text('I will look.').exec('ls -la && false').usage({ input_tokens: 20000, cached_tokens: 15000, output_tokens: 100, reasoning_tokens: 30 }),
    responsesReply().applyPatch(patch).usage({ input_tokens: 21000, cached_tokens: 15000, output_tokens: 100 }),
    responsesReply().text('Done: wrote hello.txt').usage({ input_tokens: 22000, cached_tokens: 20000, output_tokens: 50 }),
  );
  const r = await codexExec('please add a hello file', { cwd: repo.root, home, timeoutMs: 60000 });
  console.log('rc', r.code, r.stdout, r.stderr.slice(-3000));
  for (const q of fake.requests) console.log('REQ', q.path, q.lastUserText, JSON.stringify(q.toolOutputs).slice(0, 500), (q.body?.tools ?? []).map((t: any) => t.name ?? t.type).join(','));
  const files = await listRollouts(home);
  await fs.mkdir('/tmp/i10codex/out', { recursive: true });
  for (const f of files) await fs.copyFile(f, '/tmp/i10codex/out/' + (process.env.OUT ?? 'a') + '.jsonl');
  console.log(files, await fs.readdir(repo.root));
}, 120000);
