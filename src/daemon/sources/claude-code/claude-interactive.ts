// Whether the Claude Code process a hook ran under is a person's terminal rather than a script: its
// record in the registry of running sessions names an entrypoint that is not an SDK's (checked with
// 2.1.332: "cli" at a terminal, "sdk-cli" for `claude -p`, as its transcript says; claude-fold.ts reads
// it the same way). Read when a prompt arrives, since the transcript still
// names the run before it: `claude -p --resume <id>` of a terminal's session would look like a person.
import type { Env } from '../../../paths.js';
import { registryRecordOf } from '../kit/session-registry.js';
import { claudeSessionsDir } from './claude-paths.js';

/** True only on the registry's word: no record, or one that does not say, is not taken for a person. */
export async function claudeRunsInTerminal(env: Env, agentPid: number): Promise<boolean> {
  const record = await registryRecordOf(claudeSessionsDir(env), agentPid);
  return typeof record?.entrypoint === 'string' && record.entrypoint !== '' && !record.entrypoint.startsWith('sdk');
}
