// One thing `ai-zen-daemon doctor` looked at: what it found and, when something needs
// doing, the one line that fixes it.
export interface Finding {
  /** node, shim, hooks, sockets, trust, config, service. */
  readonly check: string;
  /** `problem` fails doctor (exit 1); a `note` is worth knowing and needs nothing done. */
  readonly status: 'ok' | 'note' | 'problem';
  readonly message: string;
  readonly fix: string | null;
}
