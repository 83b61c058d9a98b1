// ai-zen's secret rules, beside secretlint's recommended preset. Four kinds: private keys, found
// by their marker whatever their separators (secret-key-material.ts); tokens a vendor prefixes
// (secret-vendor-rules.ts); secrets a config file, a command line, a header or a URL carries
// (secret-context-rules.ts); and a value assigned to a name that says it is secret (here:
// `db_password=…`, `"password": "…"`, `API_KEY="…"` with spaces). Each rule is a plain regex
// with no nested quantifier over the same characters, so a long document costs linear time.
// The value a rule reports is the capture group that matched (else the whole match).
import { CONTEXT_RULES } from './secret-context-rules.js';
import { scanKeyMaterial } from './secret-key-material.js';
import {
  isPath,
  looksGenerated,
  looksLikeCode,
  looksLikeIdentifier,
  looksLikeKey,
  notPlaceholder,
  type Rule,
  type SecretFinding,
} from './secret-rule-kit.js';
import { VENDOR_RULES } from './secret-vendor-rules.js';

export type { SecretFinding };

// Names that say their value is secret: `db_password`, `SECRET_KEY`, `clientSecret`, `api-key`.
// The keyword ends the name (`passwordField` holds no password); `pass` and `pwd` only after a
// prefix (`db_pass`, `smtp_pwd`): alone, `PWD` is the shell's working folder and `pass` a test state.
const SECRET_NAME =
  '(?:\\b(?:[A-Za-z0-9]{1,40}[_.-]){0,6}(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?|mnemonic|seed[_-]?phrase|secret[_-]?key[_-]?base|signing[_-]?key|encryption[_-]?key|master[_-]?key|auth[_-]?key)|\\b(?:[A-Za-z0-9]{1,40}[_.-]){1,6}(?:pass|pwd)|\\b[a-z][A-Za-z0-9]{0,60}(?:Password|Passwd|Passphrase|Secret|Token|ApiKey|AccessKey|SecretKey|PrivateKey|AuthToken|Mnemonic|SigningKey|EncryptionKey|MasterKey))';
/** A name that says what the secret is, not the secret: `DB_PASSWORD_FILE=/run/secrets/db`, `API_KEY_HEADER=…`. */
const DESCRIBES_ONLY = /(?:_|\b)(?:FILE|PATH|NAME|HEADER|PLACEHOLDER|EXAMPLE|ENV|VAR|LENGTH|URL)[ \t"']*(?::=|=>|[:=])/i;

function namedSecret(accept: (value: string) => boolean): (value: string, match: string) => boolean {
  return (value, match) => accept(value) && !DESCRIBES_ONLY.test(match.slice(0, match.length - value.length));
}

// A value in quotes may hold spaces; one without ends at a space, a quote or a separator.
const QUOTED_VALUE = `(?:"([^"\\n]{1,300})"|'([^'\\n]{1,300})')`;

const RULES: readonly Rule[] = [
  // `.env` and shell names in upper case that hold a secret anywhere in them (`DB_PASSWORD_PROD=…`).
  // TOKEN(?!S): `MAX_TOKENS=4096` is a number of tokens, not a token.
  {
    rule: 'env-assignment',
    pattern:
      /\b[A-Z][A-Z0-9_]{0,60}(?:PASSWORD|PASSWD|PASS|SECRET|TOKEN(?!S)|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Z0-9_]{0,60}[ \t]*=[ \t]*(?:"([^"\n]{1,300})"|'([^'\n]{1,300})'|([^\s"'`;,]+))/dg,
    // A call, an index or a regex (`API_KEY = readKey()`, `= /…/`) is code, not a value.
    accept: namedSecret((value) => notPlaceholder(value) && !/[()[\]{}]/.test(value) && !/^\/[(^[\\]/.test(value) && !looksLikeCode(value)),
  },
  // AWS's documentation example keys end in EXAMPLE; they open no account.
  ...VENDOR_RULES.map(
    ([rule, source]): Rule => ({
      rule,
      pattern: new RegExp(source, 'dg'),
      ...(rule === 'aws-access-key-id' ? { accept: (value: string) => !value.endsWith('EXAMPLE') } : {}),
    }),
  ),
  // Headers.
  {
    rule: 'authorization',
    pattern: /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|apikey)\s+([0-9A-Za-z._~+/=-]{8,})/dgi,
  },
  { rule: 'authorization', pattern: /\bbearer\s+([0-9A-Za-z._~+/-]{20,}=*)/dgi, accept: looksGenerated },
  {
    rule: 'api-key-header',
    pattern:
      /\b(?:x-[\w-]{0,40}(?:key|token|secret|auth|signature)|api-key|api-token|private-token|ocp-apim-subscription-key)["']?\s*:\s*["']?([0-9A-Za-z._~+/=-]{12,})/dgi,
    accept: notPlaceholder,
  },
  // Credentials in a URL: the password between `user:` and `@`.
  {
    rule: 'url-credentials',
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/"'`<>]{1,64}:([^\s@/"'`<>]{3,128})@[0-9A-Za-z.[-]/dgi,
    accept: notPlaceholder,
  },
  // Command lines.
  {
    rule: 'password-flag',
    pattern:
      /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n`|;&]{0,200}?\s-p(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'`-][^\s"'`]*))/dg,
    accept: notPlaceholder,
  },
  {
    rule: 'password-flag',
    pattern:
      /\b(?:sshpass|docker\s+login|podman\s+login|helm\s+registry\s+login|twine\s+upload)\b[^\n`|;&]{0,200}?\s-p\s+(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'`-][^\s"'`]*))/dg,
    accept: notPlaceholder,
  },
  {
    rule: 'password-flag',
    pattern:
      /(?:^|\s)--?(?:password|passwd|pass|token|access-token|auth-token|api-key|apikey|secret|client-secret|oauth2-bearer|private-key|authkey|auth-key|passphrase|secret-key|access-key|storepass|keypass|srcstorepass|deststorepass)(?:=|\s+)(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'`-][^\s"'`]*))/dgi,
    // A path names the file that holds the secret (`--private-key ./deploy.pem`).
    accept: (value) => notPlaceholder(value) && !isPath(value),
  },
  { rule: 'password-flag', pattern: /\bhtpasswd\s+-[a-zA-Z]*b[a-zA-Z]*\s+\S+\s+\S+\s+(\S+)/dg, accept: notPlaceholder },
  {
    rule: 'password-flag',
    pattern: /\s(?:-u|--user)\s+["']?[^\s:"'`]{1,64}:([^\s"'`@]{3,})/dg,
    accept: (value) => notPlaceholder(value) && !/^\d+$/.test(value),
  },
  // A secret-named value: quoted (code, JSON, YAML, shell), or unquoted after `=` (env, ini, shell).
  {
    rule: 'secret-assignment',
    pattern: new RegExp(`${SECRET_NAME}["']?\\s*(?::=|=>|[:=])\\s*${QUOTED_VALUE}`, 'dgi'),
    accept: namedSecret((value) => notPlaceholder(value) && !/%(?:\d|[sdifjo]\b|\()|\$\{|\{\{/.test(value)),
  },
  {
    rule: 'secret-assignment',
    pattern: new RegExp(`${SECRET_NAME}=([^\\s"'\`;,&|]+)`, 'dgi'),
    accept: namedSecret((value) => notPlaceholder(value) && !/[()]/.test(value) && !looksLikeCode(value)),
  },
  // Unquoted in YAML or a config (`password: 8etV…`, `aws_secret_access_key = …`): only values that look generated.
  {
    rule: 'secret-assignment',
    pattern: new RegExp(`${SECRET_NAME}[ \\t]*(?::|[ \\t]=)[ \\t]*([^\\s"'\`,;]{6,})`, 'dgi'),
    accept: namedSecret((value) => looksGenerated(value) && !looksLikeCode(value) && !looksLikeIdentifier(value)),
  },
  // Names too common to trust alone (`auth`, `key`, `sig`): only a value that looks like a key.
  {
    rule: 'secret-assignment',
    pattern: new RegExp(
      `\\b(?:[A-Za-z0-9]{1,40}[_.-]){0,6}(?:auth|key|sig|signature|salt)["']?\\s*(?::=|=>|[:=])\\s*${QUOTED_VALUE}`,
      'dgi',
    ),
    accept: namedSecret(looksLikeKey),
  },
  ...CONTEXT_RULES,
];

/** Our rules over the text: each finding is the secret's own span, never its name. */
export function scanOwnRules(text: string): SecretFinding[] {
  const findings: SecretFinding[] = scanKeyMaterial(text);
  for (const { rule, pattern, accept } of RULES) {
    for (const match of text.matchAll(pattern)) {
      const group = match.indices?.findIndex((span, index) => index > 0 && span !== undefined) ?? -1;
      const [start, end] = (group > 0 ? match.indices?.[group] : match.indices?.[0]) ?? [
        match.index ?? 0,
        (match.index ?? 0) + match[0].length,
      ];
      const value = text.slice(start, end);
      if (accept && !accept(value, match[0])) continue;
      findings.push({ rule, start, end });
    }
  }
  return findings;
}
