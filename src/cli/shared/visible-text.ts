// Text that came from files (a session's model name and messages, paths, commit subjects) reaches a
// terminal only through these. A cloned repo's session file is anyone's text: raw, its control
// characters could write the clipboard (OSC 52), plant links (OSC 8), set the title, or erase the
// lines above them (CSI 2K, a bare CR) — the "untrusted" line among them.

/** C0 but tab and newline, DEL, C1, and the invisible marks that reorder or break a line (bidi overrides, U+2028/9). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** The same, tab and newline included: for a cell of one line. */
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** What JSON.stringify leaves raw that a terminal may still act on. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** C0 as its Control Pictures sign (ESC → ␛, BEL → ␇, CR → ␍), DEL as ␡, anything else as �: one column each. */
function picture(character: string): string {
  const code = character.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '\u2421' : '\ufffd';
}

/** Printable as it stands: lines and tabs kept, every other control shown as a sign rather than obeyed. */
export function visibleText(text: string): string {
  return text.replace(UNSAFE, picture);
}

/** One line of a screen (top's cells): a newline or a tab is shown as a sign too. */
export function visibleLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, picture);
}

/** `--json` for a terminal or a script: JSON.stringify escapes C0 itself; DEL, C1 and the bidi marks become `\uXXXX` too. */
export function visibleJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    UNSAFE_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
