// Codex CLI as a session source (X3): its rollouts under `${CODEX_HOME:-~/.codex}/sessions`, the
// ones whose session_meta cwd is inside this repo, measured as Codex measures itself, handed over
// at `agents.codex.handoffAt` (default 70%) — before Codex compacts by itself at about 95% of the
// window it reports (its auto-compaction limit is 90% of the model's full window, which it reports
// as 95% of that: checked against the real client, 0.171) — and continued by a fresh `codex`.
import path from 'node:path';
import type { AgentConfig } from '../../../config/agents-config.js';
import { codexSessionsFolder, type Env } from '../../../paths.js';
import type { WatchedSource } from '../../watching/session-source.js';
import { readCodexEvidence } from './codex-evidence.js';
import { codexHooksInstalled } from './codex-hooks.js';
import { isRolloutName } from './codex-rollout-meta.js';
import { CodexOwnership, codexRolloutFolders } from './codex-rollout-folders.js';
import { isCodexSessionLive } from './codex-liveness.js';
import { codexSessionIdFromName, createCodexSessionReader, type CodexReaderSettings } from './codex-session-reader.js';
import type { CompactionPoints } from '../../watching/compaction-points.js';

export interface CodexSourceContext {
  /** Real path of the project root. */
  readonly root: string;
  readonly env: Env;
  readonly agent: AgentConfig;
  /** Where Codex was seen compacting each model by itself (absent: the table's points only). */
  readonly learned?: Pick<CompactionPoints, 'pointFor'>;
}

export function createCodexSessionSource(context: CodexSourceContext): WatchedSource {
  const sessions = codexSessionsFolder(context.env);
  const ownership = new CodexOwnership(context.root);
  const settings: CodexReaderSettings = {
    handoffAt: context.agent.handoffAt,
    warnAt: context.agent.warnAt,
    handoffAtTokens: context.agent.handoffAtTokens,
    contextWindow: context.agent.contextWindow,
    models: context.agent.models,
    learnedPoint: (model) => context.learned?.pointFor('codex', model) ?? null,
  };
  const prefix = sessions + path.sep;
  return {
    id: 'codex',
    kind: 'codex',
    label: 'Codex',
    folders: codexRolloutFolders(sessions, ownership),
    matches: (file) => file.startsWith(prefix) && isRolloutName(path.basename(file)),
    createReader: (file) => createCodexSessionReader(file, ownership, settings),
    isLive: (file) => isCodexSessionLive(path.dirname(sessions), codexSessionIdFromName(file)),
    handover: {
      readEvidence: (file) => readCodexEvidence(file, context.root),
      successorCommand: codexSuccessorCommand,
      selfHooksInstalled: () => codexHooksInstalled(context.env),
      // Codex skips a hook the user has not trusted, without a word.
      selfHooksMustAnswer: true,
      selfWriteInstructions: (doc) => [
        `Before you stop, create the handoff document with your apply_patch tool, as one new file at exactly this path (relative to the repo root): ${doc.relative}`,
        `That is one patch with one "*** Add File: ${doc.relative}" and nothing else: change no other file.`,
      ],
    },
  };
}

/** A fresh Codex session that starts from the document — never `codex resume` of the full history. */
export function codexSuccessorCommand(documentPath: string): string {
  return `codex ${doubleQuoted(`Read the handoff document ${documentPath} first: it says what was done, what is left and how to check it. Then continue the work it describes.`)}`;
}

/** A shell word in double quotes: `"`, `$`, backquote and backslash escaped. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/(["$`\\])/g, '\\$1')}"`;
}
