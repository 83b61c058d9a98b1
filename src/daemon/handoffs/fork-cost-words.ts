// What a fork's document cost, in the words `handoffs` and the notification use:
// `fork cost 2.1k tokens in (1.9k cached) + 400 out (~$0.004)`; tokens only when the price is not known.
import { formatDollars } from '../../config/model-prices.js';
import type { ForkCost } from '../../events.js';
import { formatTokens } from '../../format-tokens.js';

export function forkCostWords(cost: ForkCost): string {
  const input = cost.input + cost.cacheRead + cost.cacheWrite5m + cost.cacheWrite1h;
  const dollars = cost.dollars === null ? '' : ` (~${formatDollars(cost.dollars)})`;
  return `fork cost ${formatTokens(input)} tokens in (${formatTokens(cost.cacheRead)} cached) + ${formatTokens(cost.output)} out${dollars}`;
}
