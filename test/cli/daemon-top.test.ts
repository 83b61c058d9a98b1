// `ai-zen-daemon top` in a real pseudo-terminal (tmux), the real CLI against a real
// daemon on a temp repo, while a Claude-Code-shaped session grows (lines appended as Claude Code
// writes them): the bar moves, a compaction marks the sparkline, `h` hands the session off and its
// state turns to handed off, `o` names the document, `q` quits and gives the screen back.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSlug } from '../../src/daemon/sources/claude-code/claude-paths.js';
import { shortId } from '../../src/short-id.js';
import { DAEMON_BIN, makeDaemonRepo, sessionId, usageLine, type DaemonRepo } from '../daemon/daemon-harness.js';
import { runCli } from '../support/run-cli-in-process.js';
import { startTmux, type TmuxSession } from '../support/tmux.js';
import { waitFor } from '../support/wait-for.js';

/** A Claude Code transcript of `root`, written line by line as Claude Code would (a 200k model). */
async function claudeSession(configDir: string, root: string) {
  const id = randomUUID();
  const folder = path.join(configDir, 'projects', claudeSlug(root));
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `${id}.jsonl`);
  const base = () => ({
    parentUuid: null,
    isSidechain: false,
    cwd: root,
    sessionId: id,
    version: '2.1.332',
    timestamp: new Date().toISOString(),
  });
  const append = (...lines: object[]) => fs.appendFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  let turn = 0;
  return {
    id,
    file,
    async user(text: string) {
      await append({ ...base(), type: 'user', message: { role: 'user', content: text } });
    },
    async reply(text: string, inputTokens: number) {
      turn += 1;
      await append({
        ...base(),
        type: 'assistant',
        message: {
          id: `msg_${turn}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text }],
          usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
        },
      });
    },
    async compact(preTokens: number) {
      await append({
        ...base(),
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens },
      });
    },
  };
}

/** The screen row of the session (its short id and a percent). */
const rowOf = (screen: string, id: string) => screen.split('\n').find((line) => line.includes(shortId(id)) && /\d+%/.test(line)) ?? '';
const filledCells = (row: string) => (/[█░┃╎]+/.exec(row)?.[0].match(/█/g) ?? []).length;

describe('ai-zen-daemon top', { timeout: 180_000 }, () => {
  let daemon: DaemonRepo | undefined;
  let term: TmuxSession | undefined;
  afterEach(async () => {
    await term?.kill();
    await daemon?.cleanup();
    term = daemon = undefined;
  });

  async function setup() {
    const started = await makeDaemonRepo({ config: { agents: { 'claude-code': { graceSeconds: 0 } } } });
    daemon = started;
    const configDir = path.join(started.repo.home, 'claude-config');
    await fs.mkdir(configDir, { recursive: true });
    Object.assign(started.env, { CLAUDE_CONFIG_DIR: configDir });
    await started.start();
    const session = await claudeSession(configDir, started.root);
    await session.user('Make the parser accept comments');
    await session.reply('Reading src/parse.ts first.', 40_000);
    await waitFor(async () => (await started.status()).sessions.some((info) => info.id === session.id && info.percent === 20), {
      timeoutMs: 30_000,
      message: 'the Claude Code session at 20% in status',
    });
    return { daemon: started, session };
  }

  it('top in a real terminal: the bar moves as the session grows, a compaction marks the sparkline, h hands it off (state handed off), o names the document, q quits and restores the screen', async () => {
    const { daemon: repo, session } = await setup();
    const short = shortId(session.id);
    term = await startTmux({
      command: [process.execPath, DAEMON_BIN, 'top', '--interval', '0.3'],
      cwd: repo.root,
      env: { ...repo.env, TERM: 'xterm-256color' },
      width: 140,
      height: 20,
    });
    let screen = await term.waitForScreen(new RegExp(`claude-code\\s+${short}.*20%`));
    expect(screen).toContain('ai-zen top');
    expect(screen).toMatch(/hands off at 70% · compacts at ~73%/);
    const before = filledCells(rowOf(screen, session.id));
    // Colours in a terminal without NO_COLOR.
    expect(await term.capture({ escapes: true })).toMatch(/\x1b\[[0-9;]*m/);

    await session.user('Now the tests');
    await session.reply('Wrote the tests.', 110_000);
    screen = await term.waitForScreen(new RegExp(`${short}.*55%.*working`));
    expect(filledCells(rowOf(screen, session.id))).toBeGreaterThan(before);

    await session.compact(110_000);
    await session.reply('Continuing after the summary.', 30_000);
    screen = await term.waitForScreen(/1 compaction/);
    screen = await term.waitForScreen(new RegExp(`${short}.*15%`));
    expect(rowOf(screen, session.id)).toContain('↓');

    await term.sendKeys('h');
    screen = await term.waitForScreen(new RegExp(`handed off ${short}: \\.ai-zen/handoffs/\\d{8}-\\d{6}-${short}\\.md`), {
      timeoutMs: 60_000,
    });
    screen = await term.waitForScreen(new RegExp(`${short}.*◆.*handed off\\s+\\d\\d:\\d\\d \\d{8}-\\d{6}-${short}\\.md`));
    const documents = await fs.readdir(path.join(repo.root, '.ai-zen', 'handoffs'));
    expect(documents.filter((name) => name.endsWith(`-${short}.md`))).toHaveLength(1);

    await term.sendKeys('o');
    screen = await term.waitForScreen(new RegExp(`document: ${repo.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.ai-zen/handoffs/`));

    await term.sendKeys('q');
    expect(await term.waitForExit()).toBe(0);
    // The alternate screen is gone: the pane shows what it showed before top, not top.
    expect(await term.capture()).not.toContain('ai-zen top');
  });

  it('o opens the last document in $PAGER and top takes the screen back after it', async () => {
    const { daemon: repo, session } = await setup();
    const short = shortId(session.id);
    const handedOff = await repo.daemon(['handoff', short]);
    expect(handedOff.code, handedOff.stderr).toBe(0);
    // The "pager" copies what it was given: proof of which file it opened.
    const opened = path.join(repo.repo.home, 'opened');
    await fs.mkdir(opened);
    term = await startTmux({
      command: [process.execPath, DAEMON_BIN, 'top'],
      cwd: repo.root,
      env: { ...repo.env, PAGER: `cp -t ${opened}` },
      width: 120,
      height: 20,
    });
    await term.waitForScreen(new RegExp(`${short}.*handed off`));
    await term.sendKeys('o');
    await waitFor(async () => (await fs.readdir(opened)).length === 1, { timeoutMs: 15_000, message: 'the pager to open the document' });
    expect(await fs.readdir(opened)).toEqual([path.basename(handedOff.stdout.split('\n')[0]!)]);
    await term.waitForScreen(/ai-zen top/);
    await term.sendKeys('q');
    expect(await term.waitForExit()).toBe(0);
  });

  it('--all: the sessions of every running daemon of the user, each under its repo', async () => {
    const first = await makeDaemonRepo();
    daemon = first;
    const second = await makeDaemonRepo({ env: { AI_ZEN_HOME: first.env.AI_ZEN_HOME!, XDG_RUNTIME_DIR: first.env.XDG_RUNTIME_DIR! } });
    try {
      const ids = [sessionId(1), sessionId(2)];
      for (const [index, repo] of [first, second].entries()) {
        await repo.start();
        await repo.writeSession(ids[index]!, { maxContextTokens: 1000 });
        await repo.appendLines(ids[index]!, usageLine(100 * (index + 3)));
        await waitFor(async () => (await repo.status()).sessions.some((info) => info.percent === 10 * (index + 3)), {
          timeoutMs: 30_000,
          message: 'the session in status',
        });
      }
      const all = await runCli(['top', '--all'], { cwd: path.dirname(first.root), env: first.env, bin: DAEMON_BIN, timeoutMs: 30_000 });
      expect(all.stderr).toBe('');
      expect(all.code).toBe(0);
      expect(all.stdout).toContain('2 daemons');
      const lines = all.stdout.split('\n');
      for (const [index, repo] of [first, second].entries()) {
        const heading = lines.indexOf(repo.root);
        expect(heading).toBeGreaterThan(0);
        expect(lines[heading + 1]).toMatch(new RegExp(`^ {2}ai-zen\\s+${shortId(ids[index]!)}\\s.*${10 * (index + 3)}%`));
      }
    } finally {
      await second.cleanup();
    }
  });

  it('not a terminal: top prints one snapshot without colours and ends; without a daemon, one line and exit 1', async () => {
    const { daemon: repo, session } = await setup();
    const once = await runCli(['top'], { cwd: repo.root, env: repo.env, bin: DAEMON_BIN, timeoutMs: 30_000 });
    expect(once.stderr).toBe('');
    expect(once.code).toBe(0);
    expect(once.stdout).not.toContain('\x1b');
    expect(rowOf(once.stdout, session.id)).toMatch(/^ {2}claude-code\s+\S+\s+[█░┃╎]+\s+20%\s+▂\s+working\s+-$/);

    await repo.daemon(['stop']);
    const none = await runCli(['top', '--once'], { cwd: repo.root, env: repo.env, bin: DAEMON_BIN, timeoutMs: 30_000 });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`ai-zen-daemon: no daemon is running for ${repo.root} (start it with: ai-zen-daemon start)\n`);
  });
});
