#!/usr/bin/env node
// The `ai-zen-daemon` command (D1–D5; its commands are in daemon/): start/stop the per-repo daemon and ask it questions.
// Exit codes: src/exit-codes.ts (all of them, documented in docs/contracts.md).
// No V8 flag is set here: the daemon process gets its own on its command line (daemon-node-options.ts).
import { runAiZenDaemon } from './daemon/program.js';

// `ai-zen-daemon status | head -1`: a reader that goes away early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
}

process.exit(await runAiZenDaemon(process.argv.slice(2)));
