// Qwen Code as a session source (X3, issue 24): its transcript folders for this repo
// (`projects/<slug>/chats/`, qwen-paths.ts), its fold, its liveness, its evidence and its successor
// command. Only the `projects/` folders whose slug may be this repo's (or a subfolder's) are listed
// and watched; other repos' transcripts are never read.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import type { AgentSourceContext } from '../agent-module.js';
// Qwen's session registry is Claude Code's shape: `<pid>.json` naming the running session.
import { isClaudeSessionLive } from '../claude-code/claude-liveness.js';
import { readQwenEvidence } from './qwen-evidence.js';
import { emptyQwenState, foldQwenLine, type QwenFoldOptions } from './qwen-fold.js';
import { qwenHooksInstalled } from './qwen-hooks.js';
import { scriptedByRegistry } from './qwen-scripted.js';
import { isQwenTranscript, mayHoldSessionsOf, qwenProjectsDir, qwenSessionsRegistry } from './qwen-paths.js';

export function createQwenCodeSource(context: AgentSourceContext): WatchedSource {
  const projects = qwenProjectsDir(context.env);
  const registry = qwenSessionsRegistry(context.env);
  const fold: QwenFoldOptions = {
    root: context.root,
    handoffAt: context.config.handoffAt,
    warnAt: context.config.warnAt,
    handoffAtTokens: context.config.handoffAtTokens,
    contextWindow: context.config.contextWindow,
    models: context.config.models,
    learnedPoint: (model) => context.learned?.pointFor('qwen-code', model) ?? null,
  };
  return {
    id: 'qwen-code',
    kind: 'qwen-code',
    label: 'Qwen Code',
    matches: (file) => isQwenTranscript(file, projects),
    createReader: (file) =>
      scriptedByRegistry(
        createLineFoldReader(file, {
          empty: (name) => emptyQwenState(name, fold),
          fold: (state, raw) => foldQwenLine(state, raw, fold),
        }),
        () => isClaudeSessionLive(registry, path.basename(file, '.jsonl')),
      ),
    isLive: (file) => isClaudeSessionLive(registry, path.basename(file, '.jsonl')),
    folders: {
      create: false,
      list: () => chatFolders(projects, context.root),
    },
    handover: {
      readEvidence: readQwenEvidence,
      successorCommand: qwenSuccessorCommand,
      selfHooksInstalled: () => qwenHooksInstalled(context.root),
      selfWriteInstructions: (doc) => [
        `Before you stop, write the handoff document with your write_file tool to exactly this path: ${doc.absolute}`,
        'Write that one file, in one write_file call, and change nothing else.',
      ],
    },
  };
}

/** The `chats/` folders of this repo's slugs; `projects/` itself and each slug folder are watched for new ones. */
async function chatFolders(projects: string, root: string): Promise<{ folders: string[]; parents: string[] }> {
  let names: string[];
  try {
    names = await fs.readdir(projects);
  } catch {
    // No Qwen Code session yet: its folder is watched until `projects/` appears.
    return { folders: [], parents: [projects, path.dirname(projects)] };
  }
  const slugs = names.filter((name) => mayHoldSessionsOf(name, root)).map((name) => path.join(projects, name));
  // A slug folder gets its chats/ a moment after it appears: the slug is watched until it has one.
  const chats = await Promise.all(
    slugs.map(async (slug) =>
      (await fs.stat(path.join(slug, 'chats')).catch(() => null))?.isDirectory() ? path.join(slug, 'chats') : null,
    ),
  );
  return { folders: chats.filter((folder): folder is string => folder !== null), parents: [projects, ...slugs] };
}

/**
 * `qwen -i "<instruction naming the doc>"`: a fresh interactive session that starts by reading the
 * document (never `--resume`; a bare positional prompt would be one-shot and exit).
 */
export function qwenSuccessorCommand(documentPath: string): string {
  const instruction = `Read ${documentPath} (the handoff document of the previous session) and continue the work from its breakpoint.`;
  return `qwen -i "${instruction.replace(/(["\\$`])/g, '\\$1')}"`;
}
