// What the secret rules share: a rule's shape, and the tests that tell a value that holds a
// secret from one that only names it (a placeholder, a variable, a version, a label).

export interface SecretFinding {
  /** Short rule name, as the redaction shows it: `aws`, `github`, `privatekey`, `env-assignment`, … */
  readonly rule: string;
  /** Character offsets in the text: [start, end). */
  readonly start: number;
  readonly end: number;
}

export interface Rule {
  readonly rule: string;
  /** Global, with indices (`dg`), so a capture group's position is known. */
  readonly pattern: RegExp;
  /** A value that names a secret without holding one is skipped. */
  readonly accept?: (value: string, match: string) => boolean;
}

/** Values that name a secret without holding one: placeholders, variables, types, redactions, expressions. */
const PLACEHOLDER =
  /^(?:…|\.\.\.|\$|%|\{|<|\[redacted|\*{3,}|x{3,}$|changeme$|null$|nil$|none$|undefined$|true$|false$|void$|this$|self$|\?|""$|''$|(?:your|my|the)[_-]|example|placeholder|dummy|secret$|pass(?:word)?$|passwd$|pwd$|token$|string$|process\.env|os\.environ|env\[)/i;
/** A version or a range of versions: `^4.0.23`, `>=1.2`, `v2.0.0-rc.1`. */
const VERSION = /^[~^<>=v]{0,3}\d+(?:\.(?:\d+|x|\*)){1,3}(?:[-+][0-9A-Za-z.-]+)?$/;
/** Words joined by `-`, `_` or `.` that repeat a secret's own name (`ietf-token`, `refresh_token`): a label. */
const LABEL = /^[a-z]+(?:[-_.][a-z]+)*$/;
const NAME_WORD = /token|password|passwd|secret|key|auth|pass/;

export function notPlaceholder(value: string): boolean {
  return (
    value.length >= 3 &&
    !PLACEHOLDER.test(value) &&
    // A number, also with digit separators as code writes it (`32_000`).
    !/^\d+(?:_\d+)*$/.test(value) &&
    !VERSION.test(value) &&
    !(LABEL.test(value) && NAME_WORD.test(value))
  );
}

/** Code, not a value: a member expression (`exports.OAuthError`), a hex constant (`0x0B96`), a format (`%0`). */
export function looksLikeCode(value: string): boolean {
  return (
    /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) ||
    /^0x[0-9A-Fa-f]{1,16}$/.test(value) ||
    /%(?:\d|[sdifjo]\b|\()|\$\{|\{\{/.test(value)
  );
}

/** A variable with a counter (`contextToken2`, `parent2`): what `token: parent2` assigns in code. */
export function looksLikeIdentifier(value: string): boolean {
  return /^[A-Za-z_$][A-Za-z_$]*\d{0,2}$/.test(value);
}

/** An unquoted value in code or YAML: a secret when it mixes letters and digits and is no expression. */
export function looksGenerated(value: string): boolean {
  return notPlaceholder(value) && /[A-Za-z]/.test(value) && /\d/.test(value) && !/[(){}[\]]/.test(value);
}

/** A key or a token, not a word or a path: long, one word of key characters, letters and digits. */
export function looksLikeKey(value: string): boolean {
  return (
    value.length >= 12 &&
    /^[A-Za-z0-9+/=_.~-]+$/.test(value) &&
    looksGenerated(value) &&
    !/^(?:\.{0,2}\/|~\/)|\.(?:pem|key|json|txt|ya?ml|crt)$/.test(value)
  );
}

/** A path to a file that holds the secret, not the secret: `./key.pem`, `~/.ssh/id_rsa`, `/run/secrets/db`. */
export function isPath(value: string): boolean {
  return /^(?:\.{1,2}\/|~\/|\/[a-z])|\.(?:pem|key|json|txt|ya?ml|crt|p12|pfx|jks)$/i.test(value);
}
