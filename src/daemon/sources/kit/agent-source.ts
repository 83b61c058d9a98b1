// An agent's definition and the parts of its sessions made into the WatchedSource the daemon runs:
// the names, the successor command (one wording, kit/successor.ts) and the handoff's needs come from
// the definition; the agent brings only what is its own (where its transcripts are, its reader, its
// liveness, its evidence, how its hooks let it write the document itself).
import type { AgentWindowSettings } from '../../../config/agent-models.js';
import { AGENT_LABELS, type WatchedAgent } from '../../../config/agent-names.js';
import type { DocPath } from '../../../handoff/doc-path.js';
import type { RawLine } from '../../watching/incremental-reader.js';
import { createLineFoldReader } from '../../watching/line-fold-reader.js';
import type {
  EvidenceOptions,
  SessionReader,
  SessionState,
  TranscriptEvidence,
  TranscriptFolders,
  WatchedSource,
} from '../../watching/session-source.js';
import type { AgentModule, AgentSourceContext } from '../agent-module.js';
import type { FoldOptions } from './observations.js';
import { successorCommand } from './successor.js';

export interface AgentSessionParts {
  /** Whether `file` (an absolute path) is one of the agent's transcripts. */
  matches(file: string): boolean;
  /** How its transcripts' names end, when not `.jsonl` (SessionSource.transcriptSuffix). */
  readonly transcriptSuffix?: string;
  readonly folders: TranscriptFolders;
  createReader(file: string): SessionReader;
  /** Whether the agent's process has the session open; null: the agent leaves no trace of it (Gemini). */
  readonly isLive: ((file: string, except?: readonly number[]) => Promise<boolean>) | null;
  /** The transcript as ai-zen messages, read as a stream in bounded memory (kit/evidence.ts). */
  readEvidence(file: string, options?: EvidenceOptions): Promise<TranscriptEvidence>;
  /** The agent's own hooks are installed for this repo: its Stop hook lets it write the document itself. */
  selfHooksInstalled(): Promise<boolean>;
  /** The agent may skip installed hooks without a word (untrusted): self only once a hook reached the daemon. */
  readonly selfHooksMustAnswer: boolean;
  /** The Stop hook's lines telling the agent to write the document at `doc` with its own tool, and nothing else. */
  selfWriteInstructions(doc: DocPath): readonly string[];
  /** The agent's own tools that change an existing file, as the one correction names them ("Write or Edit", "apply_patch"). */
  readonly editTools: string;
  /** How the agent reads a file without asking the person, as the Stop hook names it ("Read tool", "shell (cat)"). */
  readonly readWith: string;
}

export interface AgentNames {
  readonly name: WatchedAgent;
  readonly label: string;
  readonly word: string;
  readonly freshSessionCommand: string | null;
  startArgs(prompt: string, clientArgs: readonly string[]): readonly string[];
}

export function agentSource(agent: AgentNames, parts: AgentSessionParts): WatchedSource {
  return {
    id: agent.name,
    kind: agent.name,
    label: agent.label,
    matches: parts.matches,
    ...(parts.transcriptSuffix ? { transcriptSuffix: parts.transcriptSuffix } : {}),
    folders: parts.folders,
    createReader: parts.createReader,
    ...(parts.isLive ? { isLive: parts.isLive } : {}),
    handoff: {
      readEvidence: parts.readEvidence,
      successorCommand: (documentPath) => successorCommand(agent, documentPath),
      freshSessionCommand: agent.freshSessionCommand,
      selfHooksInstalled: parts.selfHooksInstalled,
      ...(parts.selfHooksMustAnswer ? { selfHooksMustAnswer: true } : {}),
      selfWriteInstructions: parts.selfWriteInstructions,
      editTools: parts.editTools,
      readWith: parts.readWith,
    },
  };
}

/** An agent as one definition: its names and commands (its label from the one list), and its sessions' parts for a project. */
export function defineAgent(
  definition: Omit<AgentModule, 'label' | 'createSource'>,
  parts: (context: AgentSourceContext) => AgentSessionParts,
): AgentModule {
  const agent: AgentModule = {
    ...definition,
    label: AGENT_LABELS[definition.name],
    createSource: (context) => agentSource(agent, parts(context)),
  };
  return agent;
}

/** The reader of the agent's transcripts: the shared line-fold reader over the agent's pure fold and its options. */
export function foldReader<O>(
  empty: (file: string, options: O) => SessionState,
  fold: (state: SessionState, raw: RawLine, options: O) => SessionState | string,
  options: O,
): (file: string) => SessionReader {
  return (file) => createLineFoldReader(file, { empty: (name) => empty(name, options), fold: (state, raw) => fold(state, raw, options) });
}

/** What the agent's fold is given: the repo and the window settings. */
export function foldOptions(agent: WatchedAgent, context: AgentSourceContext): FoldOptions {
  return { root: context.root, ...windowSettings(agent, context) };
}

/** The window settings of the agent's sessions: `agents.<name>` of the config and what was learned of where it compacts. */
export function windowSettings(agent: WatchedAgent, context: AgentSourceContext): AgentWindowSettings {
  const config = context.config;
  return {
    handoffAt: config.handoffAt,
    warnAt: config.warnAt,
    handoffAtTokens: config.handoffAtTokens,
    contextWindow: config.contextWindow,
    models: config.models,
    learnedPoint: (model) => context.learned?.pointFor(agent, model) ?? null,
  };
}

/** The Stop hook's lines for an agent that writes files with a named tool, to the absolute path. */
export function writeWithTool(tool: string): (doc: DocPath) => readonly string[] {
  return (doc) => [
    `Before you stop, write the handoff document with your ${tool} tool to exactly this path: ${doc.absolute}`,
    `Write that one file, in one ${tool} call, and change nothing else.`,
  ];
}
