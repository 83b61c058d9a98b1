// The steps every handoff shares, whoever it is for — ai-zen's own migrations (migration-service.ts)
// and another agent's crossings (the daemon's foreign sessions): reserve the document, capture the
// facts and load the skill, run the executors with the one-way downgrade (R11), seal it (T1, T5) and
// check it (F1–F4). Recording it (a session line, or the committer) stays with the caller.
import type { Logger } from 'pino';
import { AiZenError } from '../errors.js';
import type { Facts, FactsProvider } from '../probe/facts.js';
import type { ExecutorName, HandoffChecks, HandoffCost } from '../session/format.js';
import { checksOfWrittenDocument } from './checks/check-written-document.js';
import { reserveHandoffDoc, type DocPath } from './doc-path.js';
import { addCost, NO_COST, type Executor, type ExecutorInput } from './executors/types.js';
import { removeIfEmpty } from './remove-if-empty.js';
import { sealDocument, type SealedDocument } from './seal-document.js';
import type { SecretScanner } from './secret-scan.js';
import type { HandoffSkill } from './skill.js';

/** An executor that failed before the one that wrote the document, and why (R11). */
export interface Downgrade {
  readonly from: ExecutorName;
  readonly reason: string;
}

/** How a document came to be: its executor, what the model calls cost, and the executors that failed first. */
export interface WrittenDocument {
  readonly executor: ExecutorName;
  readonly downgrades: readonly Downgrade[];
  readonly cost: HandoffCost;
}

export interface ExecutorChainOptions {
  /** The executors to try, in the one-way order (self, summary, offline), the first one first. */
  readonly executors: readonly Executor[];
  readonly input: ExecutorInput;
  /** Executors that failed before this chain began (the agent's own `self` in its session). */
  readonly earlier?: readonly Downgrade[];
  /** One executor failed and the next is tried: said in the log and the event by the caller. */
  readonly onDowngrade: (from: ExecutorName, to: ExecutorName, reason: string) => void;
  readonly logger: Logger;
}

/** R11: each executor in turn until one leaves a verified document; never back up. Throws when none did. */
export async function runExecutorChain(options: ExecutorChainOptions): Promise<WrittenDocument> {
  const downgrades: Downgrade[] = [...(options.earlier ?? [])];
  let cost = NO_COST;
  for (const [index, executor] of options.executors.entries()) {
    options.logger.info(
      { sessionId: options.input.sessionId, executor: executor.name, doc: options.input.doc.relative },
      'handoff: running executor',
    );
    const outcome = await executor.run(options.input);
    cost = addCost(cost, outcome.cost);
    if (outcome.ok) return { executor: executor.name, downgrades, cost };
    const next = options.executors[index + 1];
    if (next === undefined) {
      const reasons = [...downgrades.map((entry) => `${entry.from}: ${entry.reason}`), `${executor.name}: ${outcome.reason}`].join('; ');
      throw new AiZenError('handoff', `no handoff document could be written (${reasons})`);
    }
    downgrades.push({ from: executor.name, reason: outcome.reason });
    options.onDowngrade(executor.name, next.name, outcome.reason);
  }
  throw new AiZenError('handoff', 'no executor left to try');
}

/**
 * T1, T5: secrets redacted in the file and the sha256 of what is left, which the committer requires.
 * A scan that cannot run gives null: the document stays for the person and is never committed.
 */
export async function sealOrKeepUncommitted(
  root: string,
  doc: DocPath,
  logger: Logger,
  sessionId: string,
  scanner?: SecretScanner,
): Promise<SealedDocument | null> {
  try {
    const sealed = await sealDocument(root, doc, scanner);
    if (sealed.redactions > 0)
      logger.warn(
        { sessionId, path: doc.relative, redactions: sealed.redactions, rules: sealed.rules },
        'secrets redacted from the handoff document',
      );
    return sealed;
  } catch (error) {
    logger.error(
      { sessionId, path: doc.relative, err: error },
      'the handoff document could not be scanned for secrets; it will not be committed',
    );
    return null;
  }
}

/** X2: a probe that fails says why in the facts; it never fails the handoff. */
export async function captureFactsOrSayWhy(facts: FactsProvider, root: string, logger: Logger, now: () => Date): Promise<Facts> {
  try {
    return await facts.capture();
  } catch (error) {
    const why = `capture failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''}`;
    logger.warn({ err: error }, 'facts could not be captured');
    return { capturedAt: now().toISOString(), root, git: { known: false, why }, ports: { known: false, why } };
  }
}

export interface WriteHandoffOptions {
  /** The project root, real path. */
  readonly root: string;
  readonly sessionId: string;
  readonly now: () => Date;
  readonly facts: FactsProvider;
  readonly loadSkill: () => Promise<HandoffSkill>;
  readonly renderFacts: (facts: Facts) => string;
  /** Everything the executors get but the document, the skill, the facts and the session id. */
  readonly input: Omit<ExecutorInput, 'root' | 'doc' | 'skill' | 'facts' | 'factsBlock' | 'sessionId' | 'logger'>;
  readonly executors: readonly Executor[];
  readonly earlier?: readonly Downgrade[];
  readonly onDowngrade: (from: ExecutorName, to: ExecutorName, reason: string) => void;
  readonly logger: Logger;
  readonly secretScanner?: SecretScanner;
  /** Between the document and its seal (a test kills the process there). */
  readonly afterDocument?: () => Promise<void>;
}

export interface HandoffDocument extends WrittenDocument {
  readonly doc: DocPath;
  readonly skill: HandoffSkill;
  readonly facts: Facts;
  /** Null: the secret scan could not run; the document is kept but never committed. */
  readonly sealed: SealedDocument | null;
  /** F1–F4 of the document as sealed: whatever it still fails is recorded and shown, never hidden. */
  readonly checks: HandoffChecks;
}

/** Reserve, facts and skill, executors, seal, check. A failure leaves no empty document behind (one with content stays). */
export async function writeHandoffDocument(options: WriteHandoffOptions): Promise<HandoffDocument> {
  const doc = await reserveHandoffDoc({ root: options.root, sessionId: options.sessionId, now: options.now });
  try {
    const [facts, skill] = await Promise.all([
      captureFactsOrSayWhy(options.facts, options.root, options.logger, options.now),
      options.loadSkill(),
    ]);
    const input: ExecutorInput = {
      ...options.input,
      root: options.root,
      doc,
      skill,
      facts,
      factsBlock: options.renderFacts(facts),
      sessionId: options.sessionId,
      logger: options.logger,
    };
    const result = await runExecutorChain({
      executors: options.executors,
      input,
      ...(options.earlier ? { earlier: options.earlier } : {}),
      onDowngrade: options.onDowngrade,
      logger: options.logger,
    });
    await options.afterDocument?.();
    const sealed = await sealOrKeepUncommitted(options.root, doc, options.logger, options.sessionId, options.secretScanner);
    const checks = await checksOfWrittenDocument(input);
    return { ...result, doc, skill, facts, sealed, checks };
  } catch (error) {
    await removeIfEmpty(doc.absolute);
    throw error;
  }
}
