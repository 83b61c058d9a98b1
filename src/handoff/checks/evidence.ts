// The evidence a handoff document is checked against: plain data, so a reader of another agent's
// transcript (Claude Code, Codex) can build its own and reuse the checks.
import type { AgentMessage } from '../../session/session-recorder.js';
import { projectPaths } from '../../paths.js';
import { ruleSentences } from '../rule-sentences.js';
import { messageText, toolActivity, userRequests } from '../transcript.js';
import path from 'node:path';

export interface HandoffEvidence {
  /** Project-relative paths the session's tool calls wrote, edited, renamed, copied or removed, in order. */
  readonly changedFiles: readonly string[];
  /**
   * The rules the user stated in this session, and those a previous document carried to it, that
   * the ⚠️ section must hold. Absent: not checked.
   */
  readonly rules?: readonly string[];
  /**
   * Every file the session named: those its tools touched or read, and the path-like words of its
   * messages (project-relative where inside the project). A document that names a file found neither
   * here nor in the repo names a file that exists nowhere. Absent: not checked.
   */
  readonly knownFiles?: readonly string[];
}

/** A word that looks like a file path: a folder and a name, or a name with an extension. */
const PATH_WORD = /(?:[\w.@~-]+\/)+[\w.@-]+|[\w@-][\w.@-]*\.[A-Za-z0-9]{1,8}\b/g;
/** At most this many names are kept (a session that named more is checked against the first ones). */
const KNOWN_FILES = 50_000;

/** Inside the project: relative to it; elsewhere: left out (the document describes the project). */
function projectRelative(root: string, file: string): string | null {
  const normalised = file.replace(/\\/g, '/');
  if (!normalised.startsWith('/')) return normalised.replace(/^(\.\/)+/, '');
  const prefix = `${root.replace(/\/+$/, '')}/`;
  return normalised.startsWith(prefix) ? normalised.slice(prefix.length) : null;
}

export function evidenceFromMessages(messages: readonly AgentMessage[], root: string, carried: readonly string[] = []): HandoffEvidence {
  // Earlier handoff documents (rewritten on request, R17) are ai-zen's, not the session's work.
  const handoffs = `${path.relative(root, projectPaths(root).handoffs).split(path.sep).join('/')}/`;
  const files = new Set<string>();
  for (const activity of toolActivity(messages).files) {
    const file = projectRelative(root, activity.path);
    if (file !== null && file !== '' && !file.startsWith(handoffs)) files.add(file);
  }
  const rules = [...carried];
  for (const rule of ruleSentences(userRequests(messages))) if (!rules.includes(rule)) rules.push(rule);
  return { changedFiles: [...files], rules, knownFiles: namedFiles(messages, root) };
}

function namedFiles(messages: readonly AgentMessage[], root: string): string[] {
  const known = new Set<string>();
  const add = (word: string) => {
    if (known.size >= KNOWN_FILES) return;
    const file = projectRelative(root, word);
    known.add(file ?? word.replace(/\\/g, '/'));
  };
  for (const entry of messages) {
    for (const word of messageText(entry.message).match(PATH_WORD) ?? []) add(word);
    for (const call of entry.message.tool_calls ?? []) for (const word of call.function.arguments.match(PATH_WORD) ?? []) add(word);
  }
  return [...known];
}
