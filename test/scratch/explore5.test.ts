import { promises as fs } from 'node:fs';
import { execSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'vitest';
import { makeTempRepo } from '../support/temp-repo.js';
import { startFakeResponses, responsesReply } from '../support/fake-responses.js';
import { makeCodexHome, codexExec } from '../support/codex-client.js';

test('explore liveness', async () => {
  const repo = await makeTempRepo();
  const fake = await startFakeResponses();
  const home = await makeCodexHome(path.dirname(repo.root), { baseURL: fake.baseURL });
  fake.enqueue(responsesReply().text('slow').delay(4000).usage({ input_tokens: 5000, output_tokens: 10 }));
  const run = codexExec('hi', { cwd: repo.root, home });
  await new Promise((r) => setTimeout(r, 2500));
  console.log(execSync(`find ${home.codexHome} -path '*skills*' -prune -o -newer ${home.codexHome}/config.toml -print; stat -c "%i %n" ${home.codexHome}/thread-writer-locks/*; cat /proc/locks`).toString());
  await run;
  console.log('AFTER', execSync(`stat -c "%i %n" ${home.codexHome}/thread-writer-locks/*; cat /proc/locks`).toString());
}, 60000);
