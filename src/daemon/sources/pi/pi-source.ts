// pi as a session source (X3): the session folders of this repo (and its subfolders) under pi's
// `sessions/`, its fold, its evidence and its successor command. Only the folders whose name may be
// this repo's are listed and watched; other repos' sessions are never read.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AgentSourceContext } from '../agent-module.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type { WatchedSource } from '../../watching/session-source.js';
import { readPiEvidence } from './pi-evidence.js';
import { piExtensionInstalled } from './pi-extension.js';
import { isPiSessionLive } from './pi-liveness.js';
import { emptyPiState, foldPiLine, type PiFoldOptions } from './pi-fold.js';
import { readPiOwnSettings } from './pi-own-settings.js';
import { isPiTranscript, mayHoldSessionsOf, piAgentDir, piSessionsDir } from './pi-paths.js';

export function createPiSource(context: AgentSourceContext): WatchedSource {
  const sessions = piSessionsDir(context.env);
  const fold: PiFoldOptions = {
    root: context.root,
    handoffAt: context.config.handoffAt,
    warnAt: context.config.warnAt,
    handoffAtTokens: context.config.handoffAtTokens,
    contextWindow: context.config.contextWindow,
    models: context.config.models,
    learnedPoint: (model) => context.learned?.pointFor('pi', model) ?? null,
    ...readPiOwnSettings(piAgentDir(context.env), context.root),
  };
  return {
    id: 'pi',
    kind: 'pi',
    label: 'pi',
    matches: (file) => isPiTranscript(file, sessions),
    createReader: (file) =>
      createLineFoldReader(file, {
        empty: (name) => emptyPiState(name, fold),
        fold: (state, raw) => foldPiLine(state, raw, fold),
      }),
    isLive: (file) => isPiSessionLive(file),
    folders: {
      create: false,
      async list() {
        let names: string[];
        try {
          names = await fs.readdir(sessions);
        } catch {
          // No pi session yet: its folder is watched until `sessions/` appears.
          return { folders: [], parents: [sessions, path.dirname(sessions)] };
        }
        return {
          folders: names.filter((name) => mayHoldSessionsOf(name, context.root)).map((name) => path.join(sessions, name)),
          parents: [sessions],
        };
      },
    },
    handover: {
      readEvidence: (file) => readPiEvidence(file, context.root),
      successorCommand: piSuccessorCommand,
      selfHooksInstalled: () => piExtensionInstalled(context.root),
      selfWriteInstructions: (doc) => [
        `Before you stop, write the handoff document with your write tool to exactly this path: ${doc.absolute}`,
        'Write that one file, in one write call, and change nothing else.',
      ],
    },
  };
}

/** `pi "<instruction naming the doc>"`: a fresh session that starts by reading the document, never `pi --session` of the old one. */
export function piSuccessorCommand(documentPath: string): string {
  const instruction = `Read the handoff document ${documentPath} first: it says what was done, what is left and how to check it. Then continue the work it describes.`;
  return `pi "${instruction.replace(/(["\\$`])/g, '\\$1')}"`;
}
