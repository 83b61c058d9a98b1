// On a nearly full disk a migration can write its document and handoff line and then
// fail to create the new session. Trying again must not multiply documents (each handoff line is
// one more daemon commit): the retry reuses the document, and the error names the step that failed.
// A real small tmpfs is filled up right after the document is written (the context's pause hook),
// so the failure is a real ENOSPC from the kernel.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { createModelClient } from '../../src/agent/model-client.js';
import { systemPrompt } from '../../src/agent/system-prompt.js';
import { createTools } from '../../src/agent/tools/index.js';
import { MigrationService } from '../../src/handoff/migration-service.js';
import { projectPaths } from '../../src/paths.js';
import { createFactsProvider } from '../../src/probe/capture-facts.js';
import { ConversationContext } from '../../src/session/conversation-context.js';

const run = promisify(execFile);

let mount: string | null = null;
let whyNotMounted = '';

beforeAll(async () => {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-full-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', folder]);
    mount = folder;
  } catch (error) {
    whyNotMounted = `mounting a 4 MB tmpfs is not possible here (${(error as Error).message.split('\n')[0]}): needs root`;
    await fs.rm(folder, { recursive: true, force: true });
  }
});

afterAll(async () => {
  if (mount === null) return;
  // Lazy: a file a failed test left open must not keep the mount for ever.
  await run('umount', ['--lazy', mount]).catch(() => {});
  await fs.rm(mount, { recursive: true, force: true });
});

/** Writes zeros until the file system says ENOSPC, in smaller and smaller pieces down to one byte. */
async function fillUp(file: string): Promise<void> {
  const handle = await fs.open(file, 'a');
  try {
    for (let size = 64 * 1024; size >= 1; size = Math.floor(size / 16)) {
      const piece = Buffer.alloc(size);
      for (;;) {
        try {
          await handle.write(piece);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    await handle.close();
  }
}

describe('a nearly full disk', { timeout: 120_000 }, () => {
  it('three migrations failing on ENOSPC leave one document and one handoff line; the error names the step; the retry after space is freed reuses the document', async (test) => {
    if (mount === null) return test.skip(whyNotMounted);
    const root = path.join(mount, 'repo');
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-full-disk-home-'));
    const filler = path.join(mount, 'filler');
    let full = false;
    let context: ConversationContext | null = null;
    try {
      await fs.mkdir(root);
      await run('git', ['init', '-q', '-b', 'main'], { cwd: root });
      const paths = projectPaths(root);
      context = await ConversationContext.create({
        paths,
        model: 'test-model',
        maxContextTokens: 100_000,
        env: { AI_ZEN_HOME: home },
        // The document and its handoff line are on disk by now; the new session is not yet.
        pauseAt: async (stage) => {
          if (stage === 'after-archive' && full) await fillUp(filler);
        },
      });
      const client = createModelClient({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1' });
      const tools = createTools({ execTimeoutMs: 10_000 });
      const agent = new Agent({ client, model: 'test-model', maxContextTokens: 100_000, root, tools, recorder: context });
      await agent.append(systemPrompt({ root, tools }), { definition: true });
      await agent.append({ role: 'user', content: 'Add an install section to the README.' });
      await agent.append({ role: 'assistant', content: 'Added it to README.md.' });
      const service = new MigrationService({
        root,
        agent,
        context,
        toolNames: agent.toolNames,
        model: null,
        facts: createFactsProvider({ root }),
        env: { AI_ZEN_HOME: home },
      });
      const oldId = context.currentId;
      const sessionFile = path.join(paths.sessions, `${oldId}.jsonl`);
      const handoffLines = async () =>
        (await fs.readFile(sessionFile, 'utf8')).split('\n').filter((line) => line.includes('"type":"handoff"'));
      const documents = async () => (await fs.readdir(path.join(root, '.ai-zen', 'handoffs'))).filter((name) => name.endsWith('.md'));

      full = true;
      const errors: string[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const error = await service.handoff({ mode: 'migrate' }).then(
          () => null,
          (failure: unknown) => failure as Error,
        );
        expect(error).not.toBeNull();
        errors.push(error!.message);
      }
      const [doc] = await documents();
      expect(await documents()).toEqual([doc]);
      expect(await handoffLines()).toHaveLength(1);
      for (const message of errors) {
        expect(message).toBe(
          `the document was written (.ai-zen/handoffs/${doc}); creating the new session failed: ${message.split('creating the new session failed: ')[1]}`,
        );
        expect(message).toMatch(/ENOSPC|no space left/i);
        expect(message).toContain('Migrating again reuses this document');
      }
      expect(context.currentId).toBe(oldId);

      full = false;
      await fs.rm(filler);
      const outcome = await service.handoff({ mode: 'migrate' });
      expect(outcome.reused).toBe(true);
      expect(outcome.path).toBe(`.ai-zen/handoffs/${doc}`);
      expect(outcome.newSessionId).not.toBeNull();
      expect(context.currentId).toBe(outcome.newSessionId);
      expect(await documents()).toEqual([doc]);
      expect(await handoffLines()).toHaveLength(1);
      const oldText = await fs.readFile(sessionFile, 'utf8');
      expect(oldText.trimEnd().split('\n').at(-1)).toContain('"type":"migrated"');
      const newText = await fs.readFile(path.join(paths.sessions, `${outcome.newSessionId}.jsonl`), 'utf8');
      expect(newText).toContain(`.ai-zen/handoffs/${doc}`);
    } finally {
      await context?.close().catch(() => {});
      await fs.rm(filler, { force: true });
      await fs.rm(root, { recursive: true, force: true });
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});
