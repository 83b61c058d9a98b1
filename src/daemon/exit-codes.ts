// Exit codes of `ai-zen-daemon` (documented in the README).
/** Done. */
export const EXIT_OK = 0;
/** An error, or no daemon is running for the repo (status, stop, …). */
export const EXIT_ERROR = 1;
/** The command line is wrong. */
export const EXIT_USAGE = 2;
/** `start`: a daemon is already running for this repo; it was left alone. */
export const EXIT_ALREADY_RUNNING = 3;
