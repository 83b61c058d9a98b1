import { promises as fs } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { makeTempRepo } from '../support/temp-repo.js';
import { startFakeResponses, responsesReply } from '../support/fake-responses.js';
import { makeCodexHome, runCodex, listRollouts } from '../support/codex-client.js';

test('explore hooks', async () => {
  const repo = await makeTempRepo();
  const fake = await startFakeResponses();
  const where = process.env.WHERE ?? 'project';
  const home = await makeCodexHome(path.dirname(repo.root), { baseURL: fake.baseURL, extraConfig: process.env.TRUST ? [] : [] });
  if (process.env.TRUST) await fs.appendFile(path.join(home.codexHome, 'config.toml'), `\n[projects.${JSON.stringify(repo.root)}]\ntrust_level = "trusted"\n`);
  const log = path.join(path.dirname(repo.root), 'hook.log');
  const hookCmd = (ev: string, out: string) => `sh -c 'cat >> ${log}; echo " <- ${ev}" >> ${log}; printf "%s" ${JSON.stringify(out).replace(/'/g, '')}'`;
  const hooks = { hooks: {
    Stop: [{ hooks: [{ type: 'command', command: `sh -c 'cat >> ${log}; echo " <- Stop" >> ${log}; if [ ! -f ${log}.blocked ]; then touch ${log}.blocked; echo "{\\"decision\\":\\"block\\",\\"reason\\":\\"HOOK-REASON write the doc\\"}"; fi'` }] }],
    SessionStart: [{ hooks: [{ type: 'command', command: `sh -c 'cat >> ${log}; echo " <- SessionStart" >> ${log}; echo "{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"SessionStart\\",\\"additionalContext\\":\\"CTX-FROM-HOOK\\"}}"'` }] }],
    PreCompact: [{ hooks: [{ type: 'command', command: `sh -c 'cat >> ${log}; echo " <- PreCompact" >> ${log}'` }] }],
  } };
  const dir = where === 'project' ? path.join(repo.root, '.codex') : home.codexHome;
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'hooks.json'), JSON.stringify(hooks));
  fake.handle((q) => {
    const t = JSON.stringify(q.input);
    console.log('REQ', q.lastUserText.slice(0, 100), t.includes('CTX-FROM-HOOK') ? '[ctx]' : '', t.includes('HOOK-REASON') ? '[reason]' : '');
    return responsesReply().text('ok').usage({ input_tokens: 5000, output_tokens: 10 });
  });
  const args = ['exec', '--skip-git-repo-check', ...(process.env.BYPASS ? ['--dangerously-bypass-hook-trust'] : []), 'hello'];
  const r = await runCodex(args, { cwd: repo.root, home });
  console.log('rc', r.code, r.stderr.slice(-1500));
  console.log('LOG', await fs.readFile(log, 'utf8').catch(() => 'no log'));
}, 120000);
