// What every executor gets and gives back. An executor either leaves a verified document at the
// path or says why it could not (the pipeline then downgrades one way, R11).
import type { Logger } from 'pino';
import type { ActivityDigest } from '../activity-digest.js';
import type { AgentMessage } from '../../session/session-recorder.js';
import type { Facts } from '../../probe/facts.js';
import type { ExecutorName, HandoffCost } from '../../session/format.js';
import type { DocPath } from '../doc-path.js';
import type { HandoffSkill } from '../skill.js';
import type { HandoffEvidence } from '../checks/evidence.js';
import type { CommandEnvironment } from '../checks/first-steps-check.js';
import type { PathPlaces } from '../portable-paths.js';
import type { PreviousDocument } from '../previous-document.js';

export interface ExecutorInput {
  /** The project root, real path. */
  readonly root: string;
  readonly doc: DocPath;
  readonly skill: HandoffSkill;
  readonly facts: Facts;
  /** renderFacts(facts) (X2). */
  readonly factsBlock: string;
  readonly sessionId: string;
  /** Project-relative path of the session file. */
  readonly sessionFile: string;
  /** The history as it was when the handoff started, before any handoff turn of this run. */
  readonly messages: readonly AgentMessage[];
  readonly maxContextTokens: number;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  /** The next goal the document is written towards (S1), already normalised; absent: none. */
  readonly goal?: string;
  /** What the document is checked against (F3); default: the tool calls in `messages`. */
  readonly evidence?: HandoffEvidence;
  /** Where F4 looks programs and paths up; default: PATH and the project folder. */
  readonly commandEnvironment?: CommandEnvironment;
  /** The offline document names these as `.`-relative paths and `~` (another agent's transcript holds this machine's). */
  readonly places?: PathPlaces;
  /** The document this session was started from: the offline document names it and carries its rules. */
  readonly previous?: PreviousDocument | null;
  /** What the messages a long transcript's reader let go of did: the offline document counts it with `messages`'. */
  readonly earlier?: ActivityDigest | null;
}

export type ExecutorOutcome =
  | { readonly ok: true; readonly cost: HandoffCost; readonly bytes: number }
  | { readonly ok: false; readonly reason: string; readonly cost: HandoffCost };

export interface Executor {
  readonly name: ExecutorName;
  run(input: ExecutorInput): Promise<ExecutorOutcome>;
}

export const NO_COST: HandoffCost = { requests: 0, prompt_tokens: 0, completion_tokens: 0 };

export function addCost(a: HandoffCost, b: HandoffCost): HandoffCost {
  return {
    requests: a.requests + b.requests,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
  };
}
