// Token counts as a person reads them: 131000 → "131k", 1500 → "1.5k", 999 → "999".
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 10_000) return `${trim((tokens / 1000).toFixed(1))}k`;
  // Below 999,500 only: 999,999 rounds to 1000 thousands, which reads "1M", not "1000k".
  if (tokens < 999_500) return `${Math.round(tokens / 1000)}k`;
  return `${trim((tokens / 1_000_000).toFixed(1))}M`;
}

function trim(text: string): string {
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}
