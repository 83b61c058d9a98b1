// Finds secrets in a handoff document before it is committed (T5). A document quotes commands,
// the last request and whatever the agent saw, so a key pasted into the chat or printed by a
// command can end up in it. secretlint's recommended rules (cloud keys, tokens, private keys, …)
// do most of the work; rules of ours (secret-rules.ts) cover what they leave. A text is scanned
// twice when it holds folded lines — as it is, and with each fold (the offline document's ` ⏎ `, a
// JSON string's `\n`) turned back into a line break of the same length — so a private key folded
// onto one line is seen whole (issue 22 §2), and every offset still points into the text as it is.
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
  return findings;
};

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
