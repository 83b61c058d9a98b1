// Finds secrets in a handoff document before it is committed (T5). A document quotes commands,
// the last request and whatever the agent saw, so a key pasted into the chat or printed by a
// command can end up in it. secretlint's recommended rules (cloud keys, tokens, private keys, …)
// do most of the work; rules of ours cover what they leave: `.env`-style assignments
// (`DB_PASSWORD=…`), a bare AWS access key id, and a private key quoted in Markdown (`> ` before
// each line, as the offline document quotes a request) or cut short, which secretlint's rule misses.
export interface SecretFinding {
  /** Short rule name, as the redaction shows it: `aws`, `github`, `privatekey`, `env-assignment`, … */
  readonly rule: string;
  /** Character offsets in the text: [start, end). */
  readonly start: number;
  readonly end: number;
}

export type SecretScanner = (text: string) => Promise<SecretFinding[]>;

const SECRETLINT_RULE_PREFIX = '@secretlint/secretlint-rule-';

// Upper-case names only (env files and shells): `maxContextTokens: 1000` in prose is no secret.
// TOKEN(?!S): `MAX_TOKENS=4096` is a number of tokens, not a token.
const ENV_ASSIGNMENT =
  /\b[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|SECRET|TOKEN(?!S)|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*[ \t]*=[ \t]*(["']?)([^\s"'`]+)\1/g;
/** Values that name a secret without holding one. */
const PLACEHOLDER = /^(?:…|\.\.\.|\$|\[redacted|<|\*{3,}|x{3,}$|changeme$|null$|none$|true$|false$|""$)/i;
const AWS_ACCESS_KEY_ID = /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g;
// From the BEGIN line through every line after it that (past a quote or indent) is base64 or a PEM
// header, or blank — up to and including an END line when there is one.
const PRIVATE_KEY =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\r?\n[ \t>]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]+: [^\r\n]*)?(?=\r?\n|$))*(?:\r?\n[ \t>]*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?/g;

/** Our rules, with no dependency: run always, beside secretlint's. */
export function scanOwnRules(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const match of text.matchAll(ENV_ASSIGNMENT)) {
    const value = match[2] ?? '';
    if (value === '' || PLACEHOLDER.test(value)) continue;
    const end = (match.index ?? 0) + match[0].length - (match[1]?.length ?? 0);
    findings.push({ rule: 'env-assignment', start: end - value.length, end });
  }
  for (const match of text.matchAll(AWS_ACCESS_KEY_ID)) {
    // AWS's documentation example keys end in EXAMPLE; they open no account.
    if (match[0].endsWith('EXAMPLE')) continue;
    findings.push({ rule: 'aws-access-key-id', start: match.index ?? 0, end: (match.index ?? 0) + match[0].length });
  }
  for (const match of text.matchAll(PRIVATE_KEY)) {
    findings.push({ rule: 'privatekey', start: match.index ?? 0, end: (match.index ?? 0) + match[0].length });
  }
  return findings;
}

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
  return [...(await lint(text)), ...scanOwnRules(text)];
};

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
