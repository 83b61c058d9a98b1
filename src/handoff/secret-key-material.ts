// Private keys, found by their marker whatever the separators around their body: a PEM block
// with line breaks, spaces, `\n` or `\r\n` escapes, one quoted word per line (`printf '%s\n'
// '-----BEGIN …' 'MII…'`), or string literals joined by `+`; the SSH2 (`---- BEGIN SSH2 …
// ----`) and PuTTY (`PuTTY-User-Key-File-3:` … `Private-MAC:`) formats; and a PEM wrapped in
// base64 (`LS0tLS1CRUdJTi…`, as a Kubernetes secret or `echo … | base64 -d` carries it). The
// span runs from the marker through the body, to the END line when one follows, else to the
// last long base64 word: a key cut short is still hidden, the prose after it is not.
import type { SecretFinding } from './secret-rule-kit.js';

const BEGIN = /-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{3,5}|PuTTY-User-Key-File-\d+: *(?:ssh|ecdsa)-[\w-]+/g;
// An END line, or PuTTY's closing MAC.
const END = /-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{3,5}|Private-MAC: *[0-9A-Fa-f]+/y;
// The headers a key file carries between its marker and its body.
const HEADER =
  /(?:Proc-Type|DEK-Info|Comment|Encryption|Public-Lines|Private-Lines|Key-Derivation|Argon2-[A-Za-z]+|Subject|Version|Hash|Charset): *[^\r\n\\]*/y;
const WORD = /[A-Za-z0-9+/=]+/y;
// What lies between the words of a body: white space, quotes, `\n` escapes, `+` joins, Markdown's `>`.
const SEPARATOR = /(?:\\[rnt]|[\s"'`,()+>\\])+/y;
/** A body line is long; short words (a last line, a PGP checksum) count only when an END follows. */
const LONG_WORD = 16;
const MAX_SHORT_RUN = 3;

function stickyAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** Where the key that starts at `from` (just past its marker) ends. */
function bodyEnd(text: string, from: number): number {
  let at = from;
  let solid = from;
  let shortRun = 0;
  while (at < text.length) {
    const end = stickyAt(END, text, at);
    if (end) return at + end[0].length;
    const separator = stickyAt(SEPARATOR, text, at);
    if (separator) {
      at += separator[0].length;
      continue;
    }
    const header = stickyAt(HEADER, text, at);
    if (header) {
      at += header[0].length;
      solid = at;
      continue;
    }
    const word = stickyAt(WORD, text, at);
    if (!word) break;
    at += word[0].length;
    if (word[0].length >= LONG_WORD) {
      solid = at;
      shortRun = 0;
    } else if (++shortRun > MAX_SHORT_RUN) break;
  }
  return solid;
}

const WRAPPED = /LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:(?:\\n|\r?\n)[ \t]*[A-Za-z0-9+/=]{16,})*/g;

/** Every private key in the text, as its span. */
export function scanKeyMaterial(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const match of text.matchAll(BEGIN)) {
    const start = match.index;
    findings.push({ rule: 'privatekey', start, end: bodyEnd(text, start + match[0].length) });
  }
  for (const match of text.matchAll(WRAPPED)) {
    // Decoded, a wrapped key says what it is; a wrapped certificate is no secret.
    const head = Buffer.from(match[0].slice(0, 400).replace(/\\n|\s/g, ''), 'base64').toString('latin1');
    if (/PRIVATE KEY|PuTTY-User-Key/.test(head))
      findings.push({ rule: 'privatekey', start: match.index, end: match.index + match[0].length });
  }
  return findings;
}
