// The next steps of a real session read again the files it read before (bench/FIDELITY.md,
// next-actions recall), so the offline document names the files a session only read — Claude Code's
// Read as its evidence reader hands it over, and ai-zen's own `read` — beside those it changed.
import { describe, expect, it } from 'vitest';
import { claudeTranscriptMessages } from '../../src/daemon/sources/claude-code/claude-evidence.js';
import { documentSections } from '../../src/handoff/checks/document-sections.js';
import { buildOfflineDocument, MAX_FILES_READ } from '../../src/handoff/executors/offline-document.js';
import { renderFacts } from '../../src/probe/render-facts.js';
import type { AgentMessage } from '../../src/session/session-recorder.js';
import { cleanFacts } from '../support/clean-facts.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';

const ROOT = '/work/project';

function claudeLine(type: 'user' | 'assistant', content: unknown, id?: string): string {
  return JSON.stringify({ type, isSidechain: false, message: { role: type, content, ...(id ? { id, model: 'claude-opus-5-5' } : {}) } });
}

function documentOf(messages: readonly AgentMessage[]): string {
  const facts = cleanFacts(ROOT);
  return buildOfflineDocument({
    sections: HANDOFF_SECTIONS,
    messages,
    facts,
    factsBlock: renderFacts(facts),
    sessionId: 's1',
    sessionFile: '/elsewhere/s1.jsonl',
    places: { root: ROOT, home: '/home/someone' },
  });
}

const fileIndex = (document: string) => documentSections(document).find((section) => section.heading.startsWith('📁'))?.body ?? '';

describe('the offline document names the files a session read', () => {
  it('a file Claude Code only read is named under 📁 as read, repo-relative; one it read and then edited is named once, as changed; a failed read is not named', () => {
    const lines = [
      claudeLine('user', 'Fix the config loader as docs/CONFIG.md says.'),
      claudeLine('assistant', [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: `${ROOT}/docs/CONFIG.md` } }], 'm1'),
      claudeLine('user', [{ type: 'tool_result', tool_use_id: 't1', content: '1\t# Configuration' }]),
      claudeLine('assistant', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: `${ROOT}/src/config.js` } }], 'm2'),
      claudeLine('user', [{ type: 'tool_result', tool_use_id: 't2', content: '1\texport {}' }]),
      claudeLine(
        'assistant',
        [{ type: 'tool_use', id: 't3', name: 'Edit', input: { file_path: `${ROOT}/src/config.js`, old_string: 'a', new_string: 'b' } }],
        'm3',
      ),
      claudeLine('user', [{ type: 'tool_result', tool_use_id: 't3', content: 'The file has been updated.' }]),
      claudeLine('assistant', [{ type: 'tool_use', id: 't4', name: 'Read', input: { file_path: `${ROOT}/missing.md` } }], 'm4'),
      claudeLine('user', [{ type: 'tool_result', tool_use_id: 't4', content: 'File does not exist.', is_error: true }]),
    ];
    const index = fileIndex(documentOf(claudeTranscriptMessages(lines)));
    expect(index).toContain('- `src/config.js` — edit');
    expect(index).toContain('Read, not changed (1):');
    expect(index).toContain('- `docs/CONFIG.md`');
    expect(index.match(/src\/config\.js/g)).toHaveLength(1);
    expect(index).not.toContain('missing.md');
    expect(index).not.toContain(ROOT);
  });

  it('ai-zen’s own read tool counts too, and a long session lists only the last files it read (bounded), saying how many it read', () => {
    const messages: AgentMessage[] = [{ message: { role: 'user', content: 'Read everything.' } }];
    for (let index = 0; index < MAX_FILES_READ + 5; index += 1) {
      const id = `r${index}`;
      messages.push(
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id, type: 'function', function: { name: 'read', arguments: JSON.stringify({ path: `docs/page-${index}.md` }) } },
            ],
          },
        },
        { message: { role: 'tool', tool_call_id: id, content: 'text' } },
      );
    }
    const index = fileIndex(documentOf(messages));
    expect(index).toContain(`Read, not changed (${MAX_FILES_READ + 5}; the last ${MAX_FILES_READ}):`);
    expect(index).toContain(`docs/page-${MAX_FILES_READ + 4}.md`);
    expect(index).not.toContain('`docs/page-4.md`');
    expect(index).toContain('`docs/page-5.md`');
  });
});
