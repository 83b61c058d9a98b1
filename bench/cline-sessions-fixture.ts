// Cline CLI sessions of other repos for the idle benchmark, shaped as Cline 3.0.65 writes them
// (test/daemon/cline-fold.fast.test.ts has the shapes seen in the real client's folders):
// `<CLINE_DIR>/data/sessions/<id>/<id>.json`, the manifest whose `cwd` says whose session it is, and
// `<id>.messages.json`, the conversation, both pretty-printed as Cline rewrites them whole.
import { promises as fs } from 'node:fs';
import path from 'node:path';

const MESSAGES_PER_SESSION = 20;

/** `sessions` sessions of 500 other repos (`/home/someone/other-repo-<n>`); their total size in bytes. */
export async function writeClineSessions(clineDir: string, sessions: number): Promise<number> {
  const folder = path.join(clineDir, 'data', 'sessions');
  await fs.mkdir(folder, { recursive: true });
  let bytes = 0;
  for (let index = 0; index < sessions; index += 1) {
    const startedAt = Date.UTC(2026, 10, 1) + index * 60_000;
    const id = `${startedAt}_${index.toString(36).padStart(5, '0')}`;
    const cwd = `/home/someone/other-repo-${index % 500}`;
    const manifest = `${JSON.stringify(
      {
        version: 1,
        session_id: id,
        source: 'cli',
        pid: 20_000 + index,
        started_at: new Date(startedAt).toISOString(),
        status: 'completed',
        interactive: false,
        provider: 'openai-compatible',
        model: 'gpt-4.1',
        cwd,
        workspace_root: cwd,
        enable_tools: true,
        enable_spawn: true,
        enable_teams: true,
        prompt: 'fix the failing test',
      },
      null,
      2,
    )}\n`;
    const messages = `${JSON.stringify(
      {
        version: 1,
        updated_at: new Date(startedAt + MESSAGES_PER_SESSION * 1000).toISOString(),
        agent: 'lead',
        sessionId: id,
        origin: { source: 'cli', mode: 'user', sessionId: id },
        messages: conversation(startedAt),
        system_prompt: 'You are Cline, a software engineer.',
      },
      null,
      2,
    )}\n`;
    await fs.mkdir(path.join(folder, id));
    await fs.writeFile(path.join(folder, id, `${id}.json`), manifest);
    await fs.writeFile(path.join(folder, id, `${id}.messages.json`), messages);
    bytes += Buffer.byteLength(manifest) + Buffer.byteLength(messages);
  }
  return bytes;
}

function conversation(startedAt: number): object[] {
  const messages: object[] = [];
  for (let step = 0; step < MESSAGES_PER_SESSION; step += 1) {
    const ts = startedAt + step * 1000;
    messages.push(
      step % 2 === 0
        ? {
            id: `u${step}`,
            role: 'user',
            content: [{ type: 'text', text: `<user_input mode="act">look at module ${step}</user_input>` }],
            ts,
          }
        : {
            id: `msg_${step}`,
            role: 'assistant',
            content: [{ type: 'text', text: `Read module ${step}: ${'the test waits on its input. '.repeat(10)}` }],
            ts,
            modelInfo: { id: 'gpt-4.1', provider: 'openai-compatible' },
            metrics: { inputTokens: 10_000 + step * 2_000, outputTokens: 300, cacheReadTokens: 8_000, cacheWriteTokens: 0 },
          },
    );
  }
  return messages;
}
