import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentMessage } from '../../src/session/session-recorder.js';
import { reserveHandoffDoc } from '../../src/handoff/doc-path.js';
import { createOfflineExecutor } from '../../src/handoff/executors/offline-executor.js';
import { silentLogger } from '../../src/log/logger.js';
import { builtInSkill, loadHandoffSkill } from '../../src/handoff/skill.js';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';
import { waitFor } from '../support/wait-for.js';

const sessionId = 'feedbeef-1111-2222-3333-444455556666';
let server: ChildProcess | null = null;
let repo: TempRepo | null = null;

afterEach(async () => {
  server?.kill('SIGKILL');
  server = null;
  await repo?.cleanup();
  repo = null;
});

function transcript(): AgentMessage[] {
  const call = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  });
  return [
    { message: { role: 'system', content: 'You are a coding agent.' }, definition: true },
    { message: { role: 'user', content: 'Add a /health endpoint to server.js' } },
    {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [call('c1', 'write', { path: 'server.js', content: '...' }), call('c2', 'exec', { command: 'npm test' })],
      },
    },
    { message: { role: 'tool', tool_call_id: 'c1', content: 'wrote server.js (120 bytes)' } },
    { message: { role: 'tool', tool_call_id: 'c2', content: 'FAIL health.test.js (exit 3 in a log line)\n[exit code 1]' } },
    { message: { role: 'assistant', content: 'The endpoint is in; one test still fails.' } },
    { message: { role: 'user', content: 'Now make the failing test pass, keep the API stable' } },
    {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [call('c3', 'edit', { path: 'server.js', old: 'a', new: 'b' }), call('c4', 'exec', { command: 'npm test' })],
      },
    },
    { message: { role: 'tool', tool_call_id: 'c3', content: 'edited server.js' } },
    { message: { role: 'tool', tool_call_id: 'c4', content: 'PASS\n[exit code 0]' } },
    { message: { role: 'assistant', content: 'All tests pass now.' } },
  ];
}

describe('offline executor (X1, X2)', () => {
  it('X1 writes a deterministic document from the transcript and real facts, with the sections of the skill in force', async () => {
    repo = await makeTempRepo();
    await repo.git('checkout', '-q', '-b', 'feature/health');
    await fs.writeFile(`${repo.root}/README.md`, '# changed\n');
    await fs.writeFile(`${repo.root}/notes.txt`, 'untracked\n');
    await fs.writeFile(
      `${repo.root}/listen.cjs`,
      "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port));\n",
    );
    server = spawn(process.execPath, ['listen.cjs'], { cwd: repo.root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    server.stdout!.on('data', (data: Buffer) => (out += data.toString()));
    const port = Number(await waitFor(() => out.trim(), { message: 'server port' }));

    const facts = await createFactsProvider({ root: repo.root }).capture();
    const skill = await loadHandoffSkill({ env: { AI_ZEN_HOME: repo.home } });
    const doc = await reserveHandoffDoc({ root: repo.root, sessionId });
    const input = {
      root: repo.root,
      doc,
      skill,
      facts,
      factsBlock: renderFacts(facts),
      sessionId,
      sessionFile: `.ai-zen/sessions/${sessionId}.jsonl`,
      messages: transcript(),
      maxContextTokens: 1000,
      logger: silentLogger(),
    };
    const outcome = await createOfflineExecutor().run(input);
    expect(outcome).toMatchObject({ ok: true, cost: { requests: 0, prompt_tokens: 0, completion_tokens: 0 } });
    const text = await fs.readFile(doc.absolute, 'utf8');
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(400);

    // Sections: exactly the skill's headings, in order.
    expect(
      text
        .split('\n')
        .filter((line) => line.startsWith('## '))
        .map((line) => line.slice(3)),
    ).toEqual(skill.sections);
    // The last request and the last delivery.
    expect(text).toContain('> Now make the failing test pass, keep the API stable');
    expect(text).toContain('> All tests pass now.');
    // Files changed by tools, and commands with their exit status.
    expect(text).toContain('`server.js` — write, edit');
    // Each distinct command once, with every exit status it had (none lost in long sessions).
    expect(text).toContain('`npm test` — 2 runs: exit 1, exit 0; last exit 0');
    // Real facts: the branch, the dirty and the untracked file, the listening server.
    expect(text).toContain('`feature/health`');
    expect(text).toContain('`README.md` — unstaged');
    expect(text).toContain('`notes.txt` — untracked');
    expect(text).toContain(`:${port}`);
    expect(text).toContain(String(server.pid));

    // Deterministic: the same transcript and facts give the same bytes.
    await createOfflineExecutor().run(input);
    expect(await fs.readFile(doc.absolute, 'utf8')).toBe(text);
  });

  it('X1 takes its headings from the built-in template when no skill can be read, and still says what happened', async () => {
    repo = await makeTempRepo({ git: false });
    const facts = await createFactsProvider({ root: repo.root }).capture();
    const doc = await reserveHandoffDoc({ root: repo.root, sessionId });
    const skill = builtInSkill();
    const outcome = await createOfflineExecutor().run({
      root: repo.root,
      doc,
      skill,
      facts,
      factsBlock: renderFacts(facts),
      sessionId,
      sessionFile: `.ai-zen/sessions/${sessionId}.jsonl`,
      messages: transcript(),
      maxContextTokens: 1000,
      logger: silentLogger(),
    });
    expect(outcome.ok).toBe(true);
    const text = await fs.readFile(doc.absolute, 'utf8');
    expect(
      text
        .split('\n')
        .filter((line) => line.startsWith('## '))
        .map((line) => line.slice(3)),
    ).toEqual(skill.sections);
    expect(text).toMatch(/Git: unknown/);
  });
});
