// For GitHub Copilot CLI, from lines shaped as the real client (1.0.102) writes them: the
// fold (what is counted, what is not), which session folders are this repo's, the hook input
// SessionStart lacks, and the offline evidence. The real client's own runs are in copilot-x3,
// copilot-hooks and copilot-continue.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCopilotEvidence } from '../../src/daemon/sources/copilot/copilot-evidence.js';
import { copilotOwnership, copilotSessionFolders } from '../../src/daemon/sources/copilot/copilot-session-folders.js';
import { makeTempRepo } from '../support/temp-repo.js';

const event = (type: string, data: object, extra: object = {}) =>
  JSON.stringify({ type, data, id: 'e', timestamp: '2026-12-04T08:00:00.000Z', parentId: null, ...extra });

describe('Copilot CLI transcripts', () => {
  it('copilot: a session folder is this repo’s by its workspace.yaml cwd (quoted or plain, a subfolder too); another repo’s is not listed, one still without workspace.yaml is watched until it has one', async () => {
    await using repo = await makeTempRepo();
    const state = path.join(repo.home, 'session-state');
    const session = async (id: string, workspace: string | null) => {
      await fs.mkdir(path.join(state, id), { recursive: true });
      if (workspace !== null) await fs.writeFile(path.join(state, id, 'workspace.yaml'), `id: ${id}\n${workspace}\nbranch: main\n`);
      return path.join(state, id);
    };
    const ours = await session('00000000-0000-4000-8000-000000000001', `cwd: ${repo.root}`);
    const sub = await session('00000000-0000-4000-8000-000000000002', `cwd: ${JSON.stringify(path.join(repo.root, 'src dir'))}`);
    await session('00000000-0000-4000-8000-000000000003', `cwd: ${path.join(repo.home, 'elsewhere')}`);
    const pending = await session('00000000-0000-4000-8000-000000000004', null);
    await fs.mkdir(path.join(state, 'not-a-session'));
    const ownership = copilotOwnership(repo.root);
    const listed = await copilotSessionFolders(state, ownership).list();
    expect(listed.folders).toEqual([ours, sub].sort());
    expect(listed.parents).toEqual([state, pending]);
    // Decided once: listing again reads no workspace.yaml of a decided folder.
    const reads = ownership.counters.reads;
    await fs.writeFile(path.join(pending, 'workspace.yaml'), `cwd: '${repo.root}'\n`);
    expect((await copilotSessionFolders(state, ownership).list()).folders).toEqual([ours, sub, pending].sort());
    expect(ownership.counters.reads).toBe(reads + 1);
  });

  it('copilot: the offline evidence holds the user’s words, the assistant’s text, commands with their exit code and the files its edit tools changed — not a subagent’s', async () => {
    await using repo = await makeTempRepo();
    const file = path.join(repo.home, 'events.jsonl');
    const start = (id: string, toolName: string, args: unknown) =>
      event('tool.execution_start', { toolCallId: id, toolName, arguments: args });
    const done = (id: string, data: object) => event('tool.execution_complete', { toolCallId: id, ...data });
    const lines = [
      event('user.message', { content: 'add a flag', transformedContent: '<current_datetime>…</current_datetime>\n\nadd a flag' }),
      event('assistant.message', { messageId: 'm', content: 'Looking.', toolRequests: [] }),
      start('c1', 'bash', { command: 'npm test', description: 'test' }),
      done('c1', { success: true, shellExecution: { exitCode: 3 }, result: { content: '<shellId: 0 completed with exit code 3>' } }),
      start('c2', 'apply_patch', '*** Begin Patch\n*** Add File: src/flag.ts\n+x\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch\n'),
      done('c2', { success: true }),
      start('c3', 'create', { path: path.join(repo.root, 'docs/new.md'), file_text: 'x' }),
      done('c3', { success: false, error: { message: 'no' } }),
      event('user.message', { content: 'from a subagent' }, { agentId: 'sub-1' }),
    ];
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    const evidence = JSON.stringify(await readCopilotEvidence(file, repo.root));
    expect(evidence).toContain('add a flag');
    expect(evidence).not.toContain('current_datetime');
    expect(evidence).toContain('Looking.');
    expect(evidence).toContain('npm test');
    expect(evidence).toContain('[exit code 3]');
    expect(evidence).toContain('src/flag.ts');
    expect(evidence).toContain('README.md');
    expect(evidence).toContain('docs/new.md');
    expect(evidence).toContain('error: the edit did not apply');
    expect(evidence).not.toContain('from a subagent');
  });
});
