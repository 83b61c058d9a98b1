// The summary executor for another agent's session (X3 §4): the same executor ai-zen's own handoffs
// use, over the configured model — when one is configured and may be used. The config already
// applied the trust rules (T3/T4: an untrusted repo's config cannot choose the endpoint, model or
// executor), and the foreign transcript is this machine's own agent's, not something that came
// with the repo. An executor of `offline` in the config means no model is asked.
import type { Config } from '../../config/load-config.js';
import type { Executor } from '../../handoff/executors/types.js';
import type { Logger } from 'pino';

export async function foreignSummaryExecutor(
  config: Config,
  logger: Logger,
): Promise<{ readonly executor: Executor; readonly maxContextTokens: number } | null> {
  if (!config.modelConfigured || config.executor === 'offline') return null;
  // Loaded on the first handoff: an idle daemon does not carry the openai client in memory.
  const [{ createModelClient }, { createSummaryExecutor }] = await Promise.all([
    import('../../agent/model-client.js'),
    import('../../handoff/executors/summary-executor.js'),
  ]);
  const client = createModelClient({ apiKey: config.apiKey, baseURL: config.baseURL, timeoutMs: config.modelTimeoutMs, logger });
  return { executor: createSummaryExecutor({ client, model: config.model }), maxContextTokens: config.maxContextTokens };
}
