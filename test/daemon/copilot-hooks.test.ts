// For GitHub Copilot CLI: `ai-zen-daemon install-hooks copilot` / `uninstall-hooks
// copilot` in the project's `.github/copilot/settings.local.json`, and the Stop hook with the real
// client (1.0.102, offline against the fake Anthropic server, its default model) at a terminal: the
// crossing is written after the Stop of its turn, so the Stop of the person's next turn is blocked
// with the document's path, Copilot writes the document itself, the daemon verifies, adopts and
// commits it (the self executor); a `-p` script's crossing is written for by the daemon (offline).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotPrompt, DEFAULT_MODEL, makeCopilotHome, startInteractiveCopilot } from '../support/copilot-client.js';
import { anthropicReply, type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.js';
import type { TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';
import { copilotHandoffModel, nextTurn } from './copilot-handoff-turns.js';
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

  // Copilot 1.0.102 writes a turn's usage line before or after its agentStop hook (a race): the Stop
  // of the turn that crosses then does not see the crossing, and the daemon takes it at the
  // session's next Stop, the end of the person's next turn, however long they take to type it.
  it('copilot: at a terminal, the Stop of the crossing turn, or else of the next, has Copilot write the document itself (self); the daemon verifies, adopts and commits it', async () => {
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
    const model = copilotHandoffModel(request, tokens, (text) => (askedWith = text));
    fake.enqueue(...model.replies);
    terminal = await startInteractiveCopilot(request, { cwd: daemon.root, home, provider, env });
    await nextTurn(daemon, terminal, /The flag parser is in src\/cli\.ts\./, 'where does the flag go', () => fake!.enqueue(model.another));
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

  // The script's crossing is written after its Stop, when its run is over: the daemon writes the document at once.
  it('copilot: a `copilot -p` script crossing with the hooks installed keeps its answer, and the daemon writes the document itself (offline)', async () => {
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
