#!/usr/bin/env node
// Placeholder until the daemon lands (issue 4): say so, exit non-zero.
process.stderr.write('ai-zen-daemon: the daemon is not built yet\n');
process.exit(1);
