// What the daemon answers Claude Code's hooks (X3, issue 10 §5), asked by `ai-zen-daemon hook claude
// <event>` over IPC:
// - Stop: read the transcript up to date first (the reply that just crossed is never missed); when
//   the crossing waits for the agent's own document, block with a reason carrying the skill, the
//   exact path and the facts — Claude writes the document with its own Write tool (self). When it
//   stops again, its document is verified and adopted, or the offline one is written instead.
// - PreCompact: Claude is about to compact and no document exists for this crossing: write the
//   offline one now, within the hook's time limit, so nothing is lost when compaction wins.
// - SessionStart: name the newest handoff document, so a fresh or compacted session knows it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { loadHandoffSkill } from '../../../handoff/skill.js';
import { HANDOFF_INSTRUCTION_MARK } from '../../../handoff/transcript.js';
import type { Env, ProjectPaths } from '../../../paths.js';
import type { FactsProvider } from '../../../probe/facts.js';
import { renderFacts } from '../../../probe/render-facts.js';
import type { ForeignSessionsRunner } from '../../foreign-sessions.js';
import { isOverThreshold, type SessionSource } from '../../session-source.js';
import type { WatchedSessions } from '../../transcript-watchers.js';

export interface ClaudeHookRequest {
  readonly event: 'Stop' | 'PreCompact' | 'SessionStart';
  readonly transcriptPath: string;
  readonly stopHookActive?: boolean;
  readonly trigger?: string;
  readonly source?: string;
}

export interface ClaudeHookDeps {
  readonly paths: ProjectPaths;
  readonly env: Env;
  readonly source: SessionSource;
  readonly watcher: WatchedSessions;
  readonly foreign: ForeignSessionsRunner;
  readonly facts: FactsProvider;
}

/** The JSON the hook prints on stdout, or null to print nothing. */
export async function answerClaudeHook(
  request: ClaudeHookRequest,
  deps: ClaudeHookDeps,
): Promise<{ output: Record<string, unknown> | null }> {
  if (request.event === 'SessionStart') return { output: await sessionStartContext(deps.paths) };
  const file = path.resolve(request.transcriptPath);
  // Only a transcript of this source, in a folder of this repo: the hook's input is not trusted further.
  if (!deps.source.matches(file)) return { output: null };
  await deps.watcher.refresh(file);
  const state = deps.watcher.state(file);
  if (!state || state.foreign) return { output: null };

  if (request.event === 'PreCompact') {
    if (!deps.foreign.hasDocument(file) && (isOverThreshold(state) || request.trigger === 'auto'))
      await deps.foreign.handOver(file, `pre-compact (${request.trigger ?? 'unknown'})`, { offline: true });
    return { output: null };
  }

  await deps.foreign.settle(file);
  if (request.stopHookActive) {
    await deps.foreign.finishSelf(file);
    return { output: null };
  }
  const claim = await deps.foreign.claimForSelf(file);
  if (!claim) return { output: null };
  const [skill, facts] = await Promise.all([
    loadHandoffSkill({ projectSkillPath: deps.paths.projectSkill, env: deps.env }),
    deps.facts.capture(),
  ]);
  const percent =
    claim.state.latestUsage && claim.state.maxContextTokens
      ? Math.round((claim.state.latestUsage.prompt_tokens / claim.state.maxContextTokens) * 100)
      : null;
  const reason = [
    `${HANDOFF_INSTRUCTION_MARK} This session has used ${percent ?? '?'}% of its context window; ai-zen hands it over before Claude Code compacts it.`,
    `Before you stop, write the handoff document with your Write tool to exactly this path: ${claim.doc.absolute}`,
    'Write that one file, in one Write call, and change nothing else. Then stop; a fresh session will continue from the document with:',
    claim.successorCommand,
    '',
    '--- handoff skill ---',
    skill.body,
    '--- end of handoff skill ---',
    '',
    'Facts captured by code just now (use them; do not invent others):',
    '',
    renderFacts(facts).trim(),
  ].join('\n');
  return { output: { decision: 'block', reason } };
}

async function sessionStartContext(paths: ProjectPaths): Promise<Record<string, unknown> | null> {
  const names = (await fs.readdir(paths.handoffs).catch(() => [] as string[])).filter((name) => name.endsWith('.md')).sort();
  const newest = names.at(-1);
  if (!newest) return null;
  const relative = path.relative(paths.root, path.join(paths.handoffs, newest)).split(path.sep).join('/');
  return {
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: `ai-zen: the newest handoff document of this repo is ${relative}. It records earlier work (the last request, what was done, files, commands, the git state); read it when you need those details.`,
    },
  };
}
