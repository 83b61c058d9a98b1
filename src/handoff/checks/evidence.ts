// The evidence a handoff document is checked against: plain data, so a reader of another agent's
// transcript (Claude Code, Codex) can build its own and reuse the checks.
import type { AgentMessage } from '../../session/session-recorder.js';
import { projectPaths } from '../../paths.js';
import { ruleSentences } from '../rule-sentences.js';
import { ActivityDigest } from '../activity-digest.js';
import { userRequests } from '../transcript.js';
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

/** Inside the project: relative to it; elsewhere: left out (the document describes the project). */
function projectRelative(root: string, file: string): string | null {
  const normalised = file.replace(/\\/g, '/');
  if (!normalised.startsWith('/')) return normalised.replace(/^(\.\/)+/, '');
  const prefix = `${root.replace(/\/+$/, '')}/`;
  return normalised.startsWith(prefix) ? normalised.slice(prefix.length) : null;
}

/** `earlier`: what the messages a long transcript's reader let go of did (kit/evidence.ts). */
export function evidenceFromMessages(
  messages: readonly AgentMessage[],
  root: string,
  carried: readonly string[] = [],
  earlier?: ActivityDigest,
): HandoffEvidence {
  const activity = ActivityDigest.of(messages, earlier);
  // Earlier handoff documents (rewritten on request, R17) are ai-zen's, not the session's work.
  const handoffs = `${path.relative(root, projectPaths(root).handoffs).split(path.sep).join('/')}/`;
  const files = new Set<string>();
  for (const changed of activity.changed.keys()) {
    const file = projectRelative(root, changed);
    if (file !== null && file !== '' && !file.startsWith(handoffs)) files.add(file);
  }
  const rules = new Set(carried);
  for (const rule of ruleSentences(userRequests(messages))) rules.add(rule);
  // The names mentioned: a session that named more than the digest keeps is checked against the first ones.
  const known = new Set<string>();
  for (const word of activity.named) known.add(projectRelative(root, word) ?? word.replace(/\\/g, '/'));
  return { changedFiles: [...files], rules: [...rules], knownFiles: [...known] };
}
