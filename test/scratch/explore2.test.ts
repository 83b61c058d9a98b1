import { promises as fs } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { makeTempRepo } from '../support/temp-repo.js';
import { startFakeResponses, responsesReply } from '../support/fake-responses.js';
import { makeCodexHome, codexExec, listRollouts, runCodex } from '../support/codex-client.js';

test('explore compaction', async () => {
  const repo = await makeTempRepo();
  const fake = await startFakeResponses();
  const home = await makeCodexHome(path.dirname(repo.root), { baseURL: fake.baseURL, model: 'gpt-5.5', extraConfig: (process.env.X ?? '').split(';').filter(Boolean) });
  let n = 0;
  fake.handle((q) => {
    n++;
    const last = q.input[q.input.length - 1];
    console.log('REQ', n, q.path, JSON.stringify(last).slice(0, 400));
    if (n === 1) return responsesReply().text('step').exec('echo hi').usage({ input_tokens: Number(process.env.IN ?? 95000), output_tokens: Number(process.env.OUTT ?? 10000) });
    if (n > 6) return responsesReply().text('stop').usage({ input_tokens: 1, output_tokens: 1 });
    return responsesReply().text('reply ' + n).usage({ input_tokens: 5000 + n, output_tokens: 10 });
  });
  const r = await codexExec('first request', { cwd: repo.root, home, timeoutMs: 60000 });
  console.log('rc', r.code, r.stdout, r.stderr.slice(-2500));
  const files = await listRollouts(home);
  await fs.mkdir('/tmp/i10codex/out', { recursive: true });
  for (const f of files) await fs.copyFile(f, '/tmp/i10codex/out/' + (process.env.OUT ?? 'b') + '.jsonl');
}, 120000);
