// Every exit code of `ai-zen` and `ai-zen-daemon`, in one place (documented in docs/contracts.md's
// "Exit codes"). A leaf: anything may import it.

/** Done. */
export const EXIT_OK = 0;
/** A failure (one line on stderr), or no daemon is running for the repo (status, stop, …). */
export const EXIT_FAILURE = 1;
/** The command line is wrong. */
export const EXIT_USAGE = 2;
/** `ai-zen-daemon start`: a daemon is already running for this repo; it was left alone. */
export const EXIT_ALREADY_RUNNING = 3;
/** The daemon's shutdown was cut short: its deadline passed or a second signal came (EX_SOFTWARE). */
export const EXIT_FORCED = 70;
/** Aborted by the person (Ctrl-C: 128 + SIGINT). */
export const EXIT_ABORTED = 130;
