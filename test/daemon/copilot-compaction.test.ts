// For GitHub Copilot CLI: its own compaction with the real client (1.0.102, offline
// against the fake OpenAI server, the pinned model) runs ai-zen's PreCompact hook (`trigger: "auto"`,
// Claude Code's input), and the daemon has the offline document written within the hook. Copilot
// decides to compact by its own count of the prompt (system prompt, tools, conversation) against its
// prompt budget, not by the provider's reported usage: the test shrinks the budget
// (COPILOT_PROVIDER_MAX_PROMPT_TOKENS) and sends long prompts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotPrompt, listCopilotTranscripts, makeCopilotHome, PINNED_MODEL } from '../support/copilot-client.js';
import { reply, startFakeOpenAI } from '../support/fake-openai.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, makeDaemonRepo } from './daemon-harness.js';

describe('Copilot CLI compacting by itself', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  afterEach(async () => {
    await daemon?.cleanup();
  });

  it('copilot: Copilot compacting by itself (its own count past its prompt budget; pinned model) runs its PreCompact hook, and with no document for the session yet the daemon writes the offline one within the hook and commits it', async () => {
    const openai = await startFakeOpenAI();
    try {
      openai.handle(() => reply().text('Noted.').usage({ prompt_tokens: 11_000, completion_tokens: 50 }));
      daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
      const home = await makeCopilotHome(path.dirname(daemon.root));
      (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
      expect((await daemon.daemon(['install-hooks', 'copilot'])).code).toBe(0);
      await daemon.start();
      const provider = { type: 'openai', baseURL: openai.baseURL, model: PINNED_MODEL } as const;
      // A 30k prompt budget, and two prompts of ~9k tokens each over Copilot's ~11k of system prompt and tools:
      // by its own count the second turn starts at ~97% of it, and Copilot compacts. COPILOT_ALLOW_ALL=true
      // trusts the folder for the resumed -p run (which refuses --trust-folder), so the repo's hooks run.
      const env = {
        AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!,
        XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!,
        COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '30000',
        COPILOT_ALLOW_ALL: 'true',
      };
      const big = 'word '.repeat(9000);
      expect((await copilotPrompt(`first ${big}`, { cwd: daemon.root, home, provider, env })).code).toBe(0);
      const [file] = await listCopilotTranscripts(home);
      const id = path.basename(path.dirname(file!));
      expect((await copilotPrompt(`second ${big}`, { cwd: daemon.root, home, provider, env, resume: id })).code).toBe(0);
      expect(await fs.readFile(file!, 'utf8')).toMatch(
        /"type":"session\.compaction_start","data":\{[^\n]*"tokenLimit":30000,"trigger":"threshold"/,
      );
      const committed = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
        timeoutMs: 60_000,
        message: 'the document PreCompact had written, committed',
      });
      expect(committed).toMatchObject({ agent: 'copilot', sessionId: id, executor: 'offline' });
      // Under handoffAt (70% of 30,000) by what the daemon reads — the provider's 11,050, or what a finished
      // compaction left: only the hook handed it over.
      const session = (await daemon.status()).sessions.find((listed) => listed.id === id)!;
      expect(session.maxContextTokens).toBe(30_000);
      expect(session.promptTokens).toBeLessThan(21_000);
    } finally {
      await openai.close();
    }
  });
});
