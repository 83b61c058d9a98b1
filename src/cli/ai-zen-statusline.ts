#!/usr/bin/env node
// The lean entry of `ai-zen-daemon statusline`: the stable shim runs this file for
// `statusline`, so Claude Code's every statusline refresh loads only statusline.ts and the little it
// imports, not the whole CLI (commander, zod, …: bench item (s) measured the full CLI's median at
// ~5× this one's on a loaded 2-core machine; bench/RESULTS-statusline.md).
// Its arguments are those after `statusline`: only `--chain <command>`. It always exits 0.
import { runStatusline } from './daemon/statusline.js';
import { restoreExtraCaCerts } from './shared/extra-ca-certs.js';

function chainOf(args: readonly string[]): { chain?: string; unknown: string[] } {
  let chain: string | undefined;
  const unknown: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const argument = args[index]!;
    if (argument === '--chain' && index + 1 < args.length) chain = args[++index];
    else if (argument.startsWith('--chain=')) chain = argument.slice('--chain='.length);
    else unknown.push(argument);
  }
  return chain === undefined ? { unknown } : { chain, unknown };
}

restoreExtraCaCerts();
const { chain, unknown } = chainOf(process.argv.slice(2));
// Said on stderr for a person trying the command; the line still prints (the statusline never fails).
if (unknown.length > 0)
  process.stderr.write(`ai-zen-daemon statusline: ignored ${unknown.join(' ')} (it takes only --chain '<command>')\n`);
// No top-level await: the shim runs this bundled as CommonJS too (rolldown.config.ts).
void runStatusline(chain === undefined ? {} : { chain }, {
  // Read as fd 0, never set up as a stream (what that costs: statusline.ts).
  get stdin(): NodeJS.ReadStream {
    return process.stdin;
  },
  stdinFd: 0,
  // Made only if used (the line goes to fd 1 at once): each stream costs a refresh to set up.
  get stdout(): NodeJS.WriteStream {
    return process.stdout;
  },
  stdoutFd: 1,
  get stderr(): NodeJS.WriteStream {
    return process.stderr;
  },
  env: process.env,
  cwd: process.cwd(),
}).finally(() => process.exit(0));
