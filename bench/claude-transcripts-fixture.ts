// Claude Code transcript lines for bench item (x), and other repos' transcripts in a Claude config
// folder: `projects/<slug of the repo>/<session id>.jsonl`, 100 sessions a repo.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { claudeSlug } from '../dist/daemon/sources/claude-code/claude-paths.js';

/** One assistant line of a Claude Code transcript, its context `tokens`. */
export const claudeLine = (root: string, id: string, n: number, tokens: number) =>
  `${JSON.stringify({ type: 'assistant', isSidechain: false, cwd: root, sessionId: id, timestamp: new Date().toISOString(), message: { id: `msg_${n}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 } } })}\n`;

/** `count` transcripts of other repos (8 assistant lines each) in `configDir/projects`. */
export async function writeClaudeTranscripts(configDir: string, count: number): Promise<void> {
  const projects = path.join(configDir, 'projects');
  const perFolder = 100;
  for (let folderIndex = 0; folderIndex * perFolder < count; folderIndex += 1) {
    const otherRoot = `/home/someone/other-repo-${folderIndex}`;
    const folder = path.join(projects, claudeSlug(otherRoot));
    await fs.mkdir(folder);
    for (let index = 0; index < perFolder && folderIndex * perFolder + index < count; index += 1) {
      const id = `${String(folderIndex).padStart(8, '0')}-0000-4000-8000-${String(index).padStart(12, '0')}`;
      await fs.writeFile(path.join(folder, `${id}.jsonl`), claudeLine(otherRoot, id, 1, 50_000).repeat(8));
    }
  }
}
