// The order vitest starts test files in: the slowest first, so that no long file starts last and
// leaves the other workers idle while it runs alone. Vitest orders by the durations it cached on an
// earlier run, but CI runs a clean clone: with no cache it orders by file size, which says little
// here (two of the five largest files are unit tests under 25 s in CI's report, and some of the
// shortest start a real client). So the files known to be slow come first, slowest first, a file
// new since then that drives a real client ranked as a typical one of those; every other file keeps
// vitest's own order after them.
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file took in a CI run's JSON report (2026-12-04 14:08, sum 2515 s over 157 files, the
 * machine shared with other work), for every file over ~20 s. Only the order matters: a file missing
 * here, or a figure that drifted, costs a little wall time, never a test.
 */
const CI_SECONDS: Readonly<Record<string, number>> = {
  // Each runs opencode then Kilo (heavier) in one worker: the two files' figures of full48, added.
  'test/daemon/opencode-like-watch.test.ts': 120,
  'test/daemon/opencode-like-continue.test.ts': 107,
  'test/daemon/claude-code.test.ts': 96,
  'test/daemon/opencode-like-handoff.test.ts': 90,
  'test/daemon/opencode-like-hooks.test.ts': 77,
  'test/cli/continue-undo.test.ts': 93,
  'test/cli/handoff-cli.test.ts': 85,
  'test/daemon/gemini-hooks.test.ts': 73,
  'test/daemon/qwen-code-hooks.test.ts': 73,
  'test/daemon/trusted-documents-claude.test.ts': 72,
  'test/daemon/x3-codex.test.ts': 68,
  'test/daemon/x3-codex-hooks.test.ts': 64,
  'test/cli/statusline.test.ts': 63,
  'test/daemon/orphan-kill-daemon.test.ts': 59,
  'test/daemon/qwen-code-sessions.test.ts': 58,
  'test/daemon/daemon-overflow.test.ts': 47,
  'test/daemon/x3-foreign-summary.test.ts': 47,
  'test/daemon/gemini-watch.test.ts': 46,
  'test/cli/doctor.test.ts': 46,
  'test/cli/install-hooks-race.test.ts': 45,
  'test/daemon/commit-while-user-works.test.ts': 43,
  'test/cli/print-mode.test.ts': 43,
  'test/daemon/hardening.test.ts': 42,
  'test/daemon/trust.test.ts': 42,
  'test/daemon/pi-watch.test.ts': 41,
  'test/daemon/claude-windows.test.ts': 40,
  'test/cli/previous-session.test.ts': 39,
  'test/daemon/daemon-lifecycle.test.ts': 37,
  'test/cli/install-hooks.test.ts': 37,
  'test/daemon/pi-hooks.test.ts': 34,
  'test/daemon/continue-other-agents.test.ts': 33,
  'test/daemon/mcp-real-clients.test.ts': 32,
  'test/handoff/secret-recall.test.ts': 32,
  'test/daemon/copilot-hooks.test.ts': 31,
  'test/daemon/copilot-x3.test.ts': 30,
  'test/daemon/trust-commit.test.ts': 30,
  'test/package/global-install.test.ts': 30,
  // Measured here, not in CI: it builds in a copy of the sources (npm pack runs prepack).
  'test/package/pack-json.test.ts': 60,
  'test/session/orphan-kill.test.ts': 30,
  'test/daemon/commit-handoff.test.ts': 28,
  'test/cli/cli-habits.test.ts': 28,
  'test/daemon/x3-handoff-by-hand.test.ts': 26,
  'test/daemon/daemon-warnings.test.ts': 25,
  'test/daemon/x3-codex-summary.test.ts': 25,
  'test/cli/service.test.ts': 24,
  'test/daemon/copilot-continue.test.ts': 22,
  'test/daemon/nested-repos.test.ts': 22,
  'test/cli/mcp-server.test.ts': 22,
  'test/daemon/pi-continue.test.ts': 21,
  'test/cli/enable-real-clients.test.ts': 21,
  'test/cli/chat/chat-handoff.test.ts': 21,
  'test/daemon/trusted-documents-codex.test.ts': 20,
  'test/cli/sessions-lineage.test.ts': 20,
};

/**
 * A file CI has no figure for yet that starts a real agent client (it imports one of
 * test/support/*-client.ts): ranked as about what such a file took (the median of those above).
 */
const REAL_CLIENT_SECONDS = 45;
const STARTS_A_REAL_CLIENT = /from '(?:\.\.?\/)+support\/[a-z-]+-client\.js'/;

function startsRealClient(file: string): boolean {
  try {
    return STARTS_A_REAL_CLIENT.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const figures = new Map<TestSpecification, number>();
    for (const file of ordered) {
      const relative = file.moduleId
        .slice(file.project.config.root.length)
        .replace(/^[\\/]/, '')
        .replaceAll('\\', '/');
      figures.set(file, CI_SECONDS[relative] ?? (startsRealClient(file.moduleId) ? REAL_CLIENT_SECONDS : 0));
    }
    // Array.prototype.sort is stable: files with no figure keep vitest's order among themselves.
    return ordered.sort((a, b) => (figures.get(b) ?? 0) - (figures.get(a) ?? 0));
  }
}
