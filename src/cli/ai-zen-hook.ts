#!/usr/bin/env node
// The lean entry of `ai-zen-daemon hook <agent> <event>`: the stable shim runs this file for `hook`,
// and the agent waits on it every turn, so it loads only a socket client (hook-forward.ts: a bare socket,
// no zod, no agent's code) and hands the agent's input to the daemon, which reads it. Only when no
// daemon answers (a session start in an enabled repo launches one) or an older daemon does not know
// the request does it load the full hook path (hook-answer.ts). Never fails the agent: any error
// prints nothing and exits 0.
import { appendFileSync } from 'node:fs';
import { EXIT_USAGE } from '../exit-codes.js';
import { forwardHook } from './daemon/hook-forward.js';
import { restoreExtraCaCerts } from './shared/extra-ca-certs.js';
import { writeOut } from './shared/write-out.js';

restoreExtraCaCerts();
const [agent, event, ...rest] = process.argv.slice(2);
if (agent === undefined || event === undefined || rest.length > 0) {
  // A person's mistake (an agent's settings always pass both): one line and the usage exit, as the full CLI.
  process.stderr.write('ai-zen-daemon: hook takes <agent> <event> (it is run by the agent as its hook)\n');
  process.exit(EXIT_USAGE);
}
// No top-level await: the shim runs this bundled as CommonJS too (rolldown.config.ts: a CommonJS
// file starts faster than an ES module, and this runs on every agent turn).
async function main(agent: string, event: string): Promise<void> {
  // A headless fork ai-zen runs to write an idle document (claude-fork.ts): its hooks answer nothing.
  if (process.env.AI_ZEN_FORK === '1') process.exit(0);
  const io = { cwd: process.cwd(), env: process.env };
  // process.stdin only when fd 0 cannot be read at once: setting it up costs every run.
  const forwarded = await forwardHook(agent, event, { ...io, stdin: () => process.stdin }).catch(() => ({ kind: 'silent' }) as const);
  let output: Record<string, unknown> | null = null;
  if (forwarded.kind === 'answered') output = forwarded.output;
  else if (forwarded.kind === 'fallback') {
    const [{ answerHookQuietly }, { Readable }] = await Promise.all([import('./daemon/hook-answer.js'), import('node:stream')]);
    output = await answerHookQuietly(agent, event, { ...io, stdin: Readable.from([forwarded.input]) });
  }
  // AI_ZEN_HOOK_DEBUG names a file that gets each answer (for a person debugging a hook).
  const debug = process.env.AI_ZEN_HOOK_DEBUG;
  if (debug && forwarded.kind !== 'fallback')
    appendFileSync(debug, `${new Date().toISOString()} hook ${agent} ${event} (${forwarded.kind}): ${JSON.stringify(output)}\n`);
  if (output) await writeOut(1, `${JSON.stringify(output)}\n`, () => process.stdout);
  process.exit(0);
}

void main(agent, event).catch(() => process.exit(0));
