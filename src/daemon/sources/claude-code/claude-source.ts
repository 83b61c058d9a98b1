// Claude Code as a session source (X3): its transcript folders for this repo, its fold, its
// liveness, its evidence and its successor command. Only the `projects/` folders whose slug may be
// this repo's (or a subfolder's) are listed and watched; other repos' transcripts are never read.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AgentConfig } from '../../../config/agents-config.js';
import type { Env } from '../../../paths.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import { readClaudeEvidence } from './claude-evidence.js';
import { emptyClaudeState, foldClaudeLine, type ClaudeFoldOptions } from './claude-fold.js';
import { isClaudeSessionLive } from './claude-liveness.js';
import { claudeHooksInstalled } from './claude-settings.js';
import { claudeProjectsDir, claudeSessionsDir, isClaudeTranscript, mayHoldSessionsOf } from './claude-paths.js';
import type { CompactionPoints } from '../../watching/compaction-points.js';

export interface ClaudeSourceOptions {
  /** Real path of the repo. */
  readonly root: string;
  readonly env: Env;
  readonly config: AgentConfig;
  /** Where Claude was seen compacting each model by itself (absent: the table's points only). */
  readonly learned?: Pick<CompactionPoints, 'pointFor'>;
}

export function createClaudeCodeSource(options: ClaudeSourceOptions): WatchedSource {
  const projects = claudeProjectsDir(options.env);
  const sessions = claudeSessionsDir(options.env);
  const fold: ClaudeFoldOptions = {
    root: options.root,
    handoffAt: options.config.handoffAt,
    warnAt: options.config.warnAt,
    handoffAtTokens: options.config.handoffAtTokens,
    contextWindow: options.config.contextWindow,
    models: options.config.models,
    learnedPoint: (model) => options.learned?.pointFor('claude-code', model) ?? null,
  };
  return {
    id: 'claude-code',
    kind: 'claude-code',
    label: 'Claude Code',
    matches: (file) => isClaudeTranscript(file, projects),
    createReader: (file) =>
      createLineFoldReader(file, {
        empty: (name) => emptyClaudeState(name, fold),
        fold: (state, raw) => foldClaudeLine(state, raw, fold),
      }),
    isLive: (file) => isClaudeSessionLive(sessions, path.basename(file, '.jsonl')),
    folders: {
      create: false,
      async list() {
        let names: string[];
        try {
          names = await fs.readdir(projects);
        } catch {
          // No Claude Code session yet: its config folder is watched until `projects/` appears.
          return { folders: [], parents: [projects, path.dirname(projects)] };
        }
        return {
          folders: names.filter((name) => mayHoldSessionsOf(name, options.root)).map((name) => path.join(projects, name)),
          parents: [projects],
        };
      },
    },
    handover: {
      readEvidence: readClaudeEvidence,
      successorCommand: (documentPath) => claudeSuccessorCommand(documentPath),
      selfHooksInstalled: () => claudeHooksInstalled(options.root),
      selfWriteInstructions: (doc) => [
        `Before you stop, write the handoff document with your Write tool to exactly this path: ${doc.absolute}`,
        'Write that one file, in one Write call, and change nothing else.',
      ],
    },
  };
}

/** `claude "<instruction naming the doc>"`: a fresh session that starts by reading the document. */
export function claudeSuccessorCommand(documentPath: string): string {
  const instruction = `Read ${documentPath} (the handoff document of the previous session) and continue the work from its breakpoint.`;
  return `claude "${instruction.replace(/(["\\$`])/g, '\\$1')}"`;
}
