// ai-zen's own secret rules, beside secretlint's recommended preset (issue 22 §2: 11 of 24
// realistic secrets got past the preset alone). Three kinds: tokens a vendor prefixes or shapes
// (`sk_live_…`, `AIza…`, a JWT), secrets a command line or a header carries (`mysql -p…`,
// `Authorization: Bearer …`, `https://user:…@host`), and a value assigned to a name that says
// it is secret (`db_password=…`, `"password": "…"`, `API_KEY="…"` with spaces). Each rule is
// a plain regex with no nested quantifier over the same characters, so a long document costs
// linear time. The value a rule reports is the capture group that matched (else the whole match).

export interface SecretFinding {
  /** Short rule name, as the redaction shows it: `aws`, `github`, `privatekey`, `env-assignment`, … */
  readonly rule: string;
  /** Character offsets in the text: [start, end). */
  readonly start: number;
  readonly end: number;
}

interface Rule {
  readonly rule: string;
  /** Global, with indices (`dg`), so a capture group's position is known. */
  readonly pattern: RegExp;
  /** A value that names a secret without holding one is skipped. */
  readonly accept?: (value: string, match: string) => boolean;
}

/** Values that name a secret without holding one: placeholders, variables, types, redactions. */
const PLACEHOLDER =
  /^(?:…|\.\.\.|\$|%|\{\{|<|\[redacted|\*{3,}|x{3,}$|changeme$|null$|nil$|none$|undefined$|true$|false$|""$|''$|(?:your|my|the)[_-]|example|placeholder|dummy|secret$|pass(?:word)?$|passwd$|pwd$|token$|string$|process\.env|os\.environ|env\[)/i;

function notPlaceholder(value: string): boolean {
  return value.length >= 3 && !PLACEHOLDER.test(value) && !/^\d+$/.test(value);
}

/** An unquoted value in code or YAML: a secret when it mixes letters and digits and is no expression. */
function looksGenerated(value: string): boolean {
  return notPlaceholder(value) && /[A-Za-z]/.test(value) && /\d/.test(value) && !/[(){}[\]]/.test(value);
}

// Names that say their value is secret: `db_password`, `SECRET_KEY`, `clientSecret`, `api-key`.
// The keyword ends the name (`passwordField` holds no password); `pass` and `pwd` only after a
// prefix (`db_pass`, `smtp_pwd`): alone, `PWD` is the shell's working folder and `pass` a test state.
const SECRET_NAME =
  '(?:\\b(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?)|\\b(?:[A-Za-z0-9]+[_.-])+(?:pass|pwd)|\\b[a-z][A-Za-z0-9]*(?:Password|Passwd|Passphrase|Secret|Token|ApiKey|AccessKey|SecretKey|PrivateKey|AuthToken))';
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
      /\b[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|SECRET|TOKEN(?!S)|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*[ \t]*=[ \t]*(?:"([^"\n]{1,300})"|'([^'\n]{1,300})'|([^\s"'`]+))/dg,
    // A call, an index or a regex (`API_KEY = readKey()`, `= /…/`) is code, not a value.
    accept: namedSecret((value) => notPlaceholder(value) && !/[()[\]{}]/.test(value) && !/^\/[(^[\\]/.test(value)),
  },
  // AWS's documentation example keys end in EXAMPLE; they open no account.
  { rule: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/dg, accept: (value) => !value.endsWith('EXAMPLE') },
  // From the BEGIN line through every line after it that (past a quote or indent) is base64 or a PEM
  // header, or blank — up to and including an END line when there is one. secretlint's rule misses a
  // key quoted in Markdown or cut short.
  {
    rule: 'privatekey',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\r?\n[ \t>]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]+: [^\r\n]*)?(?=\r?\n|$|["'`\\]))*(?:\r?\n[ \t>]*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?/dg,
  },
  // Vendor tokens, recognised by their prefix and shape.
  { rule: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg },
  { rule: 'stripe', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/dg },
  { rule: 'stripe', pattern: /\bwhsec_[0-9A-Za-z+/=]{24,}/dg },
  { rule: 'sendgrid', pattern: /\bSG\.[0-9A-Za-z_-]{16,32}\.[0-9A-Za-z_-]{16,64}/dg },
  { rule: 'mailgun', pattern: /\bkey-[0-9a-f]{32}\b/dg },
  { rule: 'mailchimp', pattern: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/dg },
  { rule: 'twilio', pattern: /\bSK[0-9a-f]{32}\b/dg },
  { rule: 'huggingface', pattern: /\bhf_[0-9A-Za-z]{30,}/dg },
  { rule: 'pypi', pattern: /\bpypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}/dg },
  { rule: 'npm', pattern: /\bnpm_[0-9A-Za-z]{36}\b/dg },
  { rule: 'github', pattern: /\b(?:gh[pousr]_[0-9A-Za-z]{36,}|github_pat_[0-9A-Za-z_]{60,})/dg },
  { rule: 'gitlab', pattern: /\bgl(?:pat|dt|ptt|rt)-[0-9A-Za-z_-]{20,}/dg },
  { rule: 'slack', pattern: /\bxox[abposre]-[0-9A-Za-z-]{10,}/dg },
  { rule: 'digitalocean', pattern: /\bdo[por]_v1_[0-9a-f]{64}\b/dg },
  { rule: 'doppler', pattern: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[0-9A-Za-z]{40,}/dg },
  { rule: 'atlassian', pattern: /\bATATT3[0-9A-Za-z_=-]{100,}/dg },
  { rule: 'vault', pattern: /\bhv[sbr]\.[0-9A-Za-z_-]{24,}/dg },
  { rule: 'terraform', pattern: /\b[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z_-]{60,}/dg },
  { rule: 'telegram', pattern: /\b\d{8,10}:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])/dg },
  { rule: 'openai', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_-]{20,}T3BlbkFJ[0-9A-Za-z_-]{20,}/dg },
  { rule: 'openai', pattern: /\bsk-(?:proj|svcacct|admin)-[0-9A-Za-z_-]{40,}/dg },
  { rule: 'anthropic', pattern: /\bsk-ant-[a-z]+\d\d-[0-9A-Za-z_-]{80,}/dg },
  { rule: 'jwt', pattern: /\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}/dg },
  { rule: 'webhook', pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[0-9A-Za-z_-]+/dg },
  { rule: 'webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[0-9A-Za-z/_-]+/dg },
  { rule: 'azure', pattern: /\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([0-9A-Za-z+/=%]{20,})/dg },
  // Headers.
  {
    rule: 'authorization',
    pattern: /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|apikey)\s+([0-9A-Za-z._~+/=-]{8,})/dgi,
  },
  { rule: 'authorization', pattern: /\bbearer\s+([0-9A-Za-z._~+/-]{20,}=*)/dgi, accept: looksGenerated },
  {
    rule: 'api-key-header',
    pattern:
      /\b(?:x-api-key|x-auth-token|x-access-token|api-key|private-token|x-gitlab-token|x-vault-token)["']?\s*:\s*["']?([0-9A-Za-z._~+/=-]{12,})/dgi,
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
      /(?:^|\s)--?(?:password|passwd|pass|token|access-token|auth-token|api-key|apikey|secret|client-secret)(?:=|\s+)(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'`-][^\s"'`]*))/dgi,
    accept: notPlaceholder,
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
    accept: namedSecret((value) => notPlaceholder(value) && !/\$\{|\{\{|%s|%\(/.test(value)),
  },
  {
    rule: 'secret-assignment',
    pattern: new RegExp(`${SECRET_NAME}=([^\\s"'\`;,&|]+)`, 'dgi'),
    accept: namedSecret((value) => notPlaceholder(value) && !/[()]/.test(value)),
  },
  // Unquoted in YAML or a config (`password: 8etV…`, `aws_secret_access_key = …`): only values that look generated.
  {
    rule: 'secret-assignment',
    pattern: new RegExp(`${SECRET_NAME}[ \\t]*(?::|[ \\t]=)[ \\t]*([^\\s"'\`,;]{6,})`, 'dgi'),
    accept: namedSecret(looksGenerated),
  },
];

/** Our rules over the text: each finding is the secret's own span, never its name. */
export function scanOwnRules(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
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
