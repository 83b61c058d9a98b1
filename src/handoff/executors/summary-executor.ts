// `summary` (R10): one independent call, without tools, over the serialised history; the code writes
// the reply to the path. Cheap and deterministic, lower fidelity; the escape hatch for `self` (R11).
import type OpenAI from 'openai';
import { complete } from '../../agent/model-client.js';
import { AiZenError } from '../../errors.js';
import { writeFileInside } from '../../fs/safe-write.js';
import type { ChatMessage, HandoffCost, Usage } from '../../session/format.js';
import { summaryCorrection, summaryRequest, summarySystemPrompt } from '../instruction.js';
import { estimateTokens } from '../../agent/estimate-tokens.js';
import { serialiseHistory } from '../serialise-history.js';
import { messageText } from '../transcript.js';
import { MIN_DOC_BYTES } from '../verify-doc.js';
import { verifyAndCheck } from '../checks/check-written-document.js';
import { addCost, NO_COST, type Executor, type ExecutorInput, type ExecutorOutcome } from './types.js';

/**
 * Temperature 0 and a fixed seed: the same history gives the same document as far as the endpoint
 * allows (OpenAI calls seeded sampling best effort; some endpoints ignore the seed)..
 */
export const SUMMARY_SAMPLING = { temperature: 0, seed: 7 } as const;

export interface SummaryExecutorOptions {
  readonly client: OpenAI;
  readonly model: string;
  /** Tokens kept free for the reply; default a quarter of the window, at most 8,000. */
  readonly replyReserveTokens?: number;
}

function usageCost(usage: Usage | null): HandoffCost {
  return { requests: 1, prompt_tokens: usage?.prompt_tokens ?? 0, completion_tokens: usage?.completion_tokens ?? 0 };
}

/** A reply wrapped whole in a ```markdown fence is unwrapped; anything else is kept as it is. */
export function documentFromReply(reply: string): string {
  const trimmed = reply.trim();
  const fenced = /^```(?:markdown|md)?[ \t]*\n([\s\S]*?)\n```$/i.exec(trimmed);
  return `${(fenced?.[1] ?? trimmed).trim()}\n`;
}

export function createSummaryExecutor(options: SummaryExecutorOptions): Executor {
  return {
    name: 'summary',
    async run(input: ExecutorInput): Promise<ExecutorOutcome> {
      const system = summarySystemPrompt(input.skill);
      const reserve = options.replyReserveTokens ?? Math.min(8000, Math.floor(input.maxContextTokens / 4));
      const frame = summaryRequest({ ...input, transcript: '' });
      const budget = Math.max(0, input.maxContextTokens - reserve - estimateTokens(system) - estimateTokens(frame));
      const history = serialiseHistory(input.messages, budget);
      input.logger.debug(
        { budget, tokens: history.tokens, shrunk: history.shrunk, dropped: history.dropped },
        'summary handoff: history serialised',
      );

      const messages: ChatMessage[] = [
        { role: 'system', content: system },
        { role: 'user', content: summaryRequest({ ...input, transcript: history.text }) },
      ];
      let cost = NO_COST;
      try {
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          const response = await complete({
            client: options.client,
            model: options.model,
            messages,
            ...SUMMARY_SAMPLING,
            ...(input.signal ? { signal: input.signal } : {}),
          });
          cost = addCost(cost, usageCost(response.usage));
          const document = documentFromReply(messageText(response.message));
          const bytes = Buffer.byteLength(document, 'utf8');
          let reason = `the reply is only ${bytes} bytes (at least ${MIN_DOC_BYTES} needed)`;
          if (bytes >= MIN_DOC_BYTES) {
            await writeFileInside(input.root, input.doc.relative, document);
            // F1–F4: a document that fails a check gets one corrective call naming what is wrong.
            const check = await verifyAndCheck(input);
            if (check.ok) return { ok: true, cost, bytes: check.bytes };
            if (check.checks === null) return { ok: false, reason: check.reason, cost };
            reason = check.reason;
          }
          if (attempt === 2) return { ok: false, reason: `${reason} after one retry`, cost };
          input.logger.info({ doc: input.doc.relative, reason }, 'summary handoff: retrying once');
          messages.push(response.message, { role: 'user', content: summaryCorrection(reason) });
        }
        return { ok: false, reason: 'no usable reply', cost };
      } catch (error) {
        if (AiZenError.isInstance(error) && error.code === 'aborted') throw error;
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        return { ok: false, reason: `the summary call failed: ${message}`, cost };
      }
    },
  };
}
