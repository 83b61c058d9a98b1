// For GitHub Copilot CLI: `ai-zen-daemon install-hooks copilot` / `uninstall-hooks
// copilot` in the project's `.github/copilot/settings.local.json`, and the Stop hook with the real
// client (1.0.102, offline against the fake Anthropic server, its default model) at a terminal: the
// daemon blocks its stop with the document's path, Copilot writes the document itself, the daemon
// verifies, adopts and commits it (the self executor).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotPrompt, DEFAULT_MODEL, makeCopilotHome, startInteractiveCopilot } from '../support/copilot-client.js';
import { anthropicReply, type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.js';
import { HANDOFF_SECTIONS } from '../support/handoff-sections.js';
import type { TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import { type DaemonRepo, handoffDocs, makeDaemonRepo } from './daemon-harness.js';

/** The prompt budget Copilot states for its default model. */
const WINDOW = 168_000;
const tokens = (percent: number) => Math.round((WINDOW * percent) / 100);
const SETTINGS = path.join('.github', 'copilot', 'settings.local.json');

describe('Copilot CLI hooks (install-hooks copilot)', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let fake: FakeAnthropic | undefined;
  let terminal: TmuxSession | undefined;
  afterEach(async () => {
    await terminal?.kill();
    await daemon?.cleanup();
    await fake?.close();
  });

  it('copilot: install-hooks puts ours beside the person’s own hooks in .github/copilot/settings.local.json (mode kept, idempotent, kept out of git), uninstall-hooks removes only ours; a broken file is left alone with one line', async () => {
    daemon = await makeDaemonRepo();
    const file = path.join(daemon.root, SETTINGS);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const theirs = { type: 'command', bash: './scripts/lint.sh', timeoutSec: 5 };
    await fs.writeFile(file, JSON.stringify({ model: 'gpt-5.4', hooks: { Stop: [theirs] } }), { mode: 0o640 });
    await fs.chmod(file, 0o640);

    const installed = await daemon.daemon(['install-hooks', 'copilot']);
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toContain(`hooks installed in ${SETTINGS}`);
    const after = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(after.model).toBe('gpt-5.4');
    expect(after.hooks.Stop[0]).toEqual(theirs);
    for (const event of ['Stop', 'PreCompact', 'SessionStart']) {
      const ours = after.hooks[event].at(-1);
      expect(ours).toMatchObject({ type: 'command' });
      expect(ours.bash).toMatch(new RegExp(` hook copilot ${event}$`));
    }
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect(await daemon.repo.git('status', '--porcelain')).toBe('');
    const again = await daemon.daemon(['install-hooks', 'copilot']);
    expect(again.stdout).toContain('hooks already installed');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(after);

    const removed = await daemon.daemon(['uninstall-hooks', 'copilot']);
    expect(removed.code).toBe(0);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ model: 'gpt-5.4', hooks: { Stop: [theirs] } });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);

    await fs.writeFile(file, '{ not json');
    const broken = await daemon.daemon(['install-hooks', 'copilot']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(await fs.readFile(file, 'utf8')).toBe('{ not json');
  });

  // Skipped with the two below (and copilot-clear-successor): on this machine since 2026-12-04
  // ~00:15 UTC, Copilot 1.0.102 runs its agentStop hook before it writes the turn's usage line, so
  // the Stop that would take the crossing sees the session under handoffAt; the crossing is seen a
  // moment later, with no Stop left until the person's next turn (the daemon then falls back to the
  // offline document after Copilot's self deadline). It fails the same way at commit 67171f6, which
  // had passed before that time: Copilot's ordering, not a change of ours. See the closing note.
  it.skip('copilot: at a terminal, its Stop hook past handoffAt has Copilot write the document itself (self); the daemon verifies, adopts and commits it', async () => {
    fake = await startFakeAnthropic();
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const home = await makeCopilotHome(path.dirname(daemon.root));
    (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    expect((await daemon.daemon(['install-hooks', 'copilot'])).code).toBe(0);
    await daemon.start();
    const provider = { type: 'anthropic', baseURL: fake.baseURL, model: DEFAULT_MODEL } as const;
    // Its hooks find the daemon's socket as a person's would.
    const env = {
      AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!,
      XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR!,
    };
    const request = 'add a --verbose flag to the CLI';
    let askedWith = '';
    fake.enqueue(
      anthropicReply()
        .tool('bash', { command: 'ls', description: 'look around' })
        .usage({ input_tokens: tokens(30), output_tokens: 20 }),
      anthropicReply()
        .text('The flag parser is in src/cli.ts.')
        .usage({ input_tokens: tokens(72), output_tokens: 50 }),
      // The Stop hook's reason is the next prompt: the model writes the document where it says.
      (received) => {
        askedWith = received.allText;
        const docPath = /exactly this path \(relative to the repo root\): (\.ai-zen\/handoffs\/\S+\.md)/.exec(askedWith)?.[1];
        if (!docPath)
          return anthropicReply()
            .text('no path asked for')
            .usage({ input_tokens: tokens(73), output_tokens: 5 });
        const body = HANDOFF_SECTIONS.map(
          (heading) =>
            `## ${heading}\n\n${heading.startsWith('💬') ? `> ${request}\n\nWritten by Copilot itself.` : 'The flag parser is in src/cli.ts; the flag is not wired yet.'}\n`,
        ).join('\n');
        const command = `mkdir -p "$(dirname '${docPath}')" && cat > '${docPath}' <<'AIZEN_DOC'\n# Handoff\n\n${body}AIZEN_DOC`;
        return anthropicReply()
          .tool('bash', { command, description: 'write the handoff document' })
          .usage({ input_tokens: tokens(73), output_tokens: 400 });
      },
      anthropicReply()
        .text('The handoff document is written.')
        .usage({ input_tokens: tokens(74), output_tokens: 20 }),
    );
    terminal = await startInteractiveCopilot(request, { cwd: daemon.root, home, provider, env });
    const committed = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 120_000,
      message: 'the committed handoff',
    }).catch(async (error: unknown) => {
      // What the person saw, and what the daemon judged of the crossing, for a run that never blocked.
      console.log(await terminal!.capture().catch(() => ''));
      console.log(await fs.readFile(path.join(daemon!.root, '.ai-zen/logs/daemon.log'), 'utf8').catch(() => ''));
      throw error;
    });
    expect(askedWith).toContain('Read the handoff document');
    expect(committed).toMatchObject({ agent: 'copilot', executor: 'self' });
    const doc = await fs.readFile(path.join(daemon.root, committed.path), 'utf8');
    expect(doc).toContain('Written by Copilot itself.');
    expect((await daemon.repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe(committed.path);
    await terminal.kill();
    terminal = undefined;
  });

  // Skipped for the same ordering (above): the script's crossing is not yet in the file at its Stop.
  it.skip('copilot: a `copilot -p` script crossing with the hooks installed keeps its answer, and the daemon writes the document itself (offline)', async () => {
    fake = await startFakeAnthropic();
    daemon = await makeDaemonRepo({ config: { agents: { copilot: { graceSeconds: 0 } } } });
    const home = await makeCopilotHome(path.dirname(daemon.root));
    (daemon.env as Record<string, string>).COPILOT_HOME = home.copilotHome;
    expect((await daemon.daemon(['install-hooks', 'copilot'])).code).toBe(0);
    await daemon.start();
    const provider = { type: 'anthropic', baseURL: fake.baseURL, model: DEFAULT_MODEL } as const;
    const env = { AI_ZEN_HOME: daemon.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: daemon.env.XDG_RUNTIME_DIR! };
    // A script's run keeps its answer: the Stop hook lets it stop, the daemon writes the document itself.
    fake.enqueue(
      anthropicReply()
        .text('Counted 3 flags.')
        .usage({ input_tokens: tokens(75), output_tokens: 20 }),
    );
    const script = await copilotPrompt('count the flags', { cwd: daemon.root, home, provider, env, trustFolder: true });
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('Counted 3 flags.');
    const offline = await waitFor(async () => (await daemon!.status()).handoffs.find((entry) => entry.state === 'committed'), {
      timeoutMs: 60_000,
      message: 'the offline document of the script’s session',
    });
    expect(offline.executor).not.toBe('self');
    expect(await handoffDocs(daemon.root)).toHaveLength(1);
  });
});
