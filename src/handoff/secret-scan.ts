// Finds secrets in a handoff document before it is committed (T5). A document quotes commands,
// the last request and whatever the agent saw, so a key pasted into the chat or printed by a
// command can end up in it. secretlint's recommended rules (cloud keys, tokens, private keys, …)
// do most of the work; rules of ours (secret-rules.ts) cover what they leave. A text is scanned
// twice when it holds folded lines — as it is, and with each fold (the offline document's ` ⏎ `, a
// JSON string's `\n`) turned back into a line break of the same length — so a private key folded
// onto one line is seen whole, and every offset still points into the text as it is.
import { scanOwnRules, type SecretFinding } from './secret-rules.js';

export { scanOwnRules, type SecretFinding };

export type SecretScanner = (text: string) => Promise<SecretFinding[]>;

const SECRETLINT_RULE_PREFIX = '@secretlint/secretlint-rule-';

let secretlint: Promise<(text: string) => Promise<SecretFinding[]>> | null = null;

/** secretlint is loaded on the first scan: a daemon that never hands off does not carry it. */
function loadSecretlint(): Promise<(text: string) => Promise<SecretFinding[]>> {
  secretlint ??= (async () => {
    const [{ lintSource }, { creator: recommended }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/secretlint-rule-preset-recommend'),
    ]);
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] };
    return async (text: string) => {
      const result = await lintSource({
        source: { content: text, filePath: 'handoff.md', ext: '.md', contentType: 'text' },
        options: { config },
      });
      return result.messages.map((message) => ({
        rule: message.ruleId.startsWith(SECRETLINT_RULE_PREFIX) ? message.ruleId.slice(SECRETLINT_RULE_PREFIX.length) : message.ruleId,
        start: message.range[0],
        end: message.range[1],
      }));
    };
  })();
  secretlint.catch(() => (secretlint = null));
  return secretlint;
}

/** The default scanner: secretlint's recommended rules and ours. Throws when secretlint cannot run. */
export const scanForSecrets: SecretScanner = async (text) => {
  const lint = await loadSecretlint();
  const unfolded = unfoldLines(text);
  const findings: SecretFinding[] = [];
  for (const form of unfolded === text ? [text] : [text, unfolded]) findings.push(...(await lint(form)), ...scanOwnRules(form));
  const joined = joinLiterals(unfolded);
  if (joined) {
    for (const finding of scanOwnRules(joined.text)) {
      const start = joined.origin(finding.start);
      const end = finding.end > finding.start ? joined.origin(finding.end - 1) + 1 : start;
      findings.push({ rule: finding.rule, start, end });
    }
  }
  return findings;
};

// Where a secret is split: string literals joined by `+` (or PHP's `.`), adjacent literals on
// two lines (Python, C), and a line continued by a backslash.
const JOIN = /(["'])[ \t]*(?:[+.][ \t]*)?(?:\r?\n[ \t]*)?\1|\\\r?\n[ \t]*/g;

/**
 * The text with its split literals and continued lines closed up, so a token cut in two is seen
 * whole; `origin(i)` is where the joined text's character i stands in the text. Null when the
 * text has nothing to join.
 */
export function joinLiterals(text: string): { text: string; origin: (index: number) => number } | null {
  // An empty literal (`""`) joins nothing.
  const matches = [...text.matchAll(JOIN)].filter((match) => match[0].length > 2 || !match[1]);
  if (matches.length === 0) return null;
  // Each kept piece: where it starts in the joined text and in the text.
  const pieces: { joined: number; original: number }[] = [];
  let joined = '';
  let at = 0;
  for (const match of [...matches, null]) {
    const until = match ? match.index : text.length;
    pieces.push({ joined: joined.length, original: at });
    joined += text.slice(at, until);
    if (match) at = match.index + match[0].length;
  }
  const origin = (index: number): number => {
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (pieces[middle]!.joined <= index) low = middle;
      else high = middle - 1;
    }
    return pieces[low]!.original + (index - pieces[low]!.joined);
  };
  return { text: joined, origin };
}

/** Folded lines back to line breaks, each replacement as long as what it replaces (offsets hold). */
export function unfoldLines(text: string): string {
  return text.replace(/ ⏎ |\\r\\n|\\n/g, (fold) => (fold === '\\r\\n' ? '\r\n  ' : fold === '\\n' ? '\n ' : '\n  '));
}

/**
 * The text with every finding replaced by `[redacted: <rule>]`. A finding is widened to the end of
 * the word it ends in (some rules report a range shorter than the secret), and overlapping findings
 * are merged, so no part of a secret is left beside its redaction.
 */
export function redactFindings(text: string, findings: readonly SecretFinding[]): { text: string; redactions: number } {
  const spans = findings
    .map((finding) => ({ rule: finding.rule, start: Math.max(0, finding.start), end: widen(text, Math.min(text.length, finding.end)) }))
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: { rule: string; start: number; end: number }[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  let result = '';
  let at = 0;
  for (const span of merged) {
    result += `${text.slice(at, span.start)}[redacted: ${span.rule}]`;
    at = span.end;
  }
  return { text: result + text.slice(at), redactions: merged.length };
}

function widen(text: string, end: number): number {
  let position = end;
  while (position < text.length && /[^\s"'`<>()[\]{},;]/.test(text.charAt(position))) position += 1;
  // A full stop after a token ends the sentence, not the token.
  while (position > end && /[.:!?]/.test(text.charAt(position - 1))) position -= 1;
  return position;
}
