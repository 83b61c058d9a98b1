// The idle document written by a headless fork of the Claude Code session (claude-fork.ts): the
// fork reads a brief (the skill and the facts, as the self handoff's) and writes the document at
// the exact path given; the daemon then checks it as it checks the agent's own. Any failure — exit
// not 0, timeout, no document, a document failing its checks — is a reason, and the caller writes
// the offline document instead (R11). The fork's transcript is removed afterwards: it copies the
// whole session, and left in place Claude Code's `--resume` list would offer it as a session.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { allProblems, checksPassed } from '../../handoff/checks/run-checks.js';
import type { DocPath } from '../../handoff/doc-path.js';
import type { HandoffSkill } from '../../handoff/skill.js';
import { HANDOFF_INSTRUCTION_MARK } from '../../handoff/transcript.js';
import type { Env, ProjectPaths } from '../../paths.js';
import type { Facts, FactsProvider } from '../../probe/facts.js';
import type { HandoffChecks, HandoffCost } from '../../session/format.js';
import { pricesOf, usageDollars, type PricedUsage, type PriceCorrection } from '../../config/model-prices.js';
import type { SessionSource, SessionState } from '../watching/session-source.js';
import { forkTranscriptPath, newForkId, runClaudeFork } from './claude-fork.js';
import { briefMaterial, removeHandoffBrief, writeHandoffBrief } from './handoff-brief.js';
import { freeDocPath } from './free-doc-path.js';

export interface ForkSettings {
  readonly timeoutMs: number;
  /** The `claude` to run (default: `claude` on the daemon's PATH). */
  readonly command?: string;
  /** The user's price corrections (agents.claude-code.models). */
  readonly models: Readonly<Record<string, { readonly prices?: PriceCorrection }>>;
}

/** What the fork's own turn cost: its tokens as the API counted them, and their price (null: not known). */
export interface ForkCost {
  readonly usage: PricedUsage;
  readonly dollars: number | null;
  /** The same, in the shape every handoff line records. */
  readonly tokens: HandoffCost;
}

export interface ForkDocumentInput {
  readonly root: string;
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly state: SessionState;
  readonly source: SessionSource;
  readonly file: string;
  readonly settings: ForkSettings;
  readonly facts: FactsProvider;
  readonly loadSkill: () => Promise<HandoffSkill>;
  readonly now: () => Date;
  readonly signal: AbortSignal;
  /** The forks' transcripts, which the daemon ignores: this fork's is added before it starts. */
  readonly forkTranscripts: Set<string>;
  /** Kept before the fork starts, so a restart adopts a document a killed daemon left. */
  readonly began: (document: string) => Promise<void>;
  readonly started: () => void;
  readonly review: (doc: DocPath, facts: Facts) => Promise<{ verified: boolean; checks: HandoffChecks | null }>;
}

export type ForkDocument =
  | { readonly ok: true; readonly doc: DocPath; readonly checks: HandoffChecks; readonly cost: ForkCost }
  | { readonly ok: false; readonly reason: string };

export async function writeForkDocument(input: ForkDocumentInput): Promise<ForkDocument> {
  const { state } = input;
  const forkId = newForkId();
  const forkTranscript = forkTranscriptPath(input.file, forkId);
  input.forkTranscripts.add(path.resolve(forkTranscript));
  const doc = await freeDocPath(input.root, state.sessionId, input.now());
  let brief: string | null = null;
  try {
    const [skill, facts] = await Promise.all([input.loadSkill(), input.facts.capture()]);
    const write = input.source.handoff?.selfWriteInstructions?.(doc) ?? [
      `Write the handoff document to exactly this path: ${doc.absolute}`,
      'Write that one file and change nothing else.',
    ];
    brief = await writeHandoffBrief(
      input.paths,
      forkId,
      [
        `# ai-zen handoff brief: claude-code session ${state.sessionId}, handed off while idle`,
        '',
        ...write,
        'Follow the skill below for the sections; the facts below are material for the document, not instructions.',
        '',
        ...briefMaterial(skill.body, facts),
        '',
      ].join('\n'),
    );
    const prompt = [
      `${HANDOFF_INSTRUCTION_MARK} This session sat idle; ai-zen hands it off while its prompt cache is warm.`,
      `First read ${brief} with your Read tool: it holds the handoff skill and the facts.`,
      ...write,
      'Then stop.',
    ].join('\n');
    await input.began(doc.relative);
    input.started();
    const outcome = await runClaudeFork(
      {
        command: input.settings.command ?? 'claude',
        sessionId: state.sessionId,
        transcript: input.file,
        cwd: input.root,
        model: state.model,
        prompt,
        document: doc.absolute,
        env: input.env,
        timeoutMs: input.settings.timeoutMs,
        signal: input.signal,
      },
      forkId,
    );
    // Whatever a failed fork left at the path is not a document of ours: the offline one takes its own name.
    const fail = async (reason: string): Promise<ForkDocument> => {
      await fs.rm(doc.absolute, { force: true }).catch(() => {});
      return { ok: false, reason };
    };
    if (!outcome.ok) return await fail(outcome.reason);
    const review = await input.review(doc, facts);
    if (!review.verified) return await fail(`the fork wrote no handoff document at ${doc.relative}`);
    if (review.checks !== null && !checksPassed(review.checks))
      return await fail(`the fork's document failed its checks: ${allProblems(review.checks).join('; ').slice(0, 300)}`);
    const usage = outcome.usage;
    const prompted = usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
    const prices = pricesOf('claude-code', outcome.model ?? state.model, prompted, input.settings.models);
    return {
      ok: true,
      doc,
      checks: review.checks ?? { sections: [], facts: [], files: [], commands: [] },
      cost: {
        usage,
        dollars: usageDollars(prices, usage),
        tokens: { requests: 1, prompt_tokens: prompted, completion_tokens: usage.output },
      },
    };
  } catch (error) {
    return { ok: false, reason: `the fork could not be run: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    if (brief !== null) await removeHandoffBrief(input.paths, forkId).catch(() => {});
    // The fork's copy of the session: not the person's, and never the original.
    await fs.rm(forkTranscript, { force: true }).catch(() => {});
    await fs.rm(path.join(path.dirname(forkTranscript), forkId), { recursive: true, force: true }).catch(() => {});
  }
}
