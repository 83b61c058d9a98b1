// `ai-zen-daemon top [--all] [--once]`: a live view of every session the daemon
// watches, in the alternate screen, drawn whole by top-render.ts at each change (a screen of a few
// dozen lines: a full redraw costs nothing, and no diffing can go wrong). Keys: ↑↓/j/k select,
// h hand off the selected session (the request `ai-zen-daemon handoff <id>` sends), o open its
// last document, q quit. Not a terminal, or --once: one snapshot, printed, and the command ends.
import path from 'node:path';
import type { Command } from 'commander';
import { HandoffReply } from '../../daemon/side-channels/status-schema.js';
import { AiZenError, describeError } from '../../errors.js';
import type { Env } from '../../paths.js';
import { runInteractive } from '../../run-process.js';
import { shortId } from '../../short-id.js';
import { daemonRoot, requestDaemon } from '../shared/daemon-client.js';
import { HANDOFF_TIMEOUT_MS } from './handoff.js';
import { writeOut, type CliIo, type CliSetup } from '../shared/run-cli.js';
import { createTopFeed, type TopFeed } from './top-feed.js';
import { renderTop, topRows, type TopDaemon } from './top-render.js';

interface TopOptions {
  readonly all?: boolean;
  readonly once?: boolean;
  readonly interval: string;
}

type Terminal = NodeJS.WriteStream;
type Keyboard = NodeJS.ReadStream;

const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';
const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';

/** NO_COLOR (https://no-color.org): present and not empty turns colours off. */
function colours(io: CliIo): boolean {
  return io.stdout.isTTY === true && !io.env.NO_COLOR;
}

export function registerTopCommand(program: Command, setup: CliSetup): void {
  program
    .command('top')
    .description(
      'a live view of every watched session: context as a bar and over time, where it hands off and compacts, its state and last document',
    )
    .option('--all', "every running daemon of this user, not only this repo's, and the sessions that exited or were handed off")
    .option('--once', 'print one snapshot and end (what top does when its output is not a terminal)')
    .option('--interval <seconds>', 'how often to ask for new readings (events redraw at once)', '2')
    .action(async (options: TopOptions) => {
      const { io } = setup;
      const seconds = Number(options.interval);
      if (!Number.isFinite(seconds) || seconds < 0.2 || seconds > 3600)
        throw new AiZenError('usage', `--interval takes seconds from 0.2 to 3600, not ${options.interval}`);
      const repo = options.all ? null : await daemonRoot(io.cwd, io.env);
      const live = !options.once && io.stdout.isTTY === true && io.stdin.isTTY === true;
      if (!live) return snapshot(io, repo);
      await runLive(io, repo, seconds * 1000);
    });
}

async function snapshot(io: CliIo, repo: string | null): Promise<void> {
  const feed = createTopFeed({ repo, env: io.env, onEvent: () => {}, folded: repo === null });
  try {
    const daemons = await feed.read();
    if (repo === null && daemons.length === 0) return writeOut(io.stdout, 'no ai-zen daemon is running\n');
    const terminal = io.stdout as Partial<Terminal>;
    const lines = renderTop({
      daemons,
      selected: -1,
      width: terminal.columns ?? 160,
      height: Number.POSITIVE_INFINITY,
      color: colours(io),
      now: Date.now(),
    });
    await writeOut(io.stdout, `${lines.join('\n')}\n`);
  } finally {
    await feed.close();
  }
}

async function runLive(io: CliIo, repo: string | null, intervalMs: number): Promise<void> {
  const terminal = io.stdout as Terminal;
  const keyboard = io.stdin as Keyboard;
  let daemons: TopDaemon[] = [];
  /** The selected session by repo and id: rows move (a handed-off one goes down), the selection stays on it. */
  let selectedKey: string | null = null;
  let message: string | null = null;
  let drawn = '';
  let paused = false;
  /** Set as top leaves the screen: a refresh still under way (failing as the feed closes) must not paint the user's screen. */
  let left = false;
  let refreshing = false;
  let again = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));

  const feed: TopFeed = createTopFeed({ repo, env: io.env, onEvent: () => void refresh(), folded: repo === null });
  // This repo's daemon not running is the command's one-line error, before the screen is taken.
  daemons = await feed.read().catch(async (error: unknown) => {
    await feed.close();
    throw error;
  });

  const keyOf = (row: { repo: string; session: { id: string } }) => `${row.repo}\0${row.session.id}`;
  const rowsNow = () => topRows(daemons, Date.now());
  const selectedIndex = () => {
    const rows = rowsNow();
    const at = rows.findIndex((row) => keyOf(row) === selectedKey);
    return Math.max(at, 0);
  };

  function draw(force = false): void {
    if (paused || left) return;
    const lines = renderTop({
      daemons,
      selected: selectedIndex(),
      width: terminal.columns || 80,
      height: terminal.rows || 24,
      color: colours(io),
      now: Date.now(),
      message,
    });
    const text = lines.map((line) => `${line}\x1b[K`).join('\r\n');
    if (!force && text === drawn) return;
    drawn = text;
    terminal.write(`\x1b[H${text}\x1b[J`);
  }

  async function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        daemons = await feed
          .read()
          .catch((error: unknown) => [{ repo: repo ?? 'daemons', sessions: [], handoffs: [], error: describeError(error) }]);
        draw();
      } while (again);
    } finally {
      refreshing = false;
    }
  }

  function move(step: number): void {
    const rows = rowsNow();
    if (rows.length === 0) return;
    const next = rows[Math.min(rows.length - 1, Math.max(0, selectedIndex() + step))]!;
    selectedKey = keyOf(next);
    draw();
  }

  async function handOff(): Promise<void> {
    const row = rowsNow()[selectedIndex()];
    if (!row) return;
    const short = shortId(row.session.id);
    message = `handing off ${short}…`;
    draw();
    try {
      const reply = await requestDaemon(row.repo, io.env, 'handoff', { session: row.session.id }, HandoffReply, HANDOFF_TIMEOUT_MS);
      const next = reply.successorCommand ? ` · continue with: ${reply.successorCommand}` : '';
      message = `handed off ${short}: ${reply.path}${next}`;
    } catch (error) {
      message = `${short} not handed off: ${describeError(error)}`;
    }
    await refresh();
    draw(true);
  }

  async function open(): Promise<void> {
    const row = rowsNow()[selectedIndex()];
    if (!row) return;
    if (!row.lastDocument) {
      message = `${shortId(row.session.id)} has no handoff document yet (h writes one)`;
      return draw();
    }
    const file = path.resolve(row.repo, row.lastDocument.path);
    const viewer = viewerOf(io.env);
    if (viewer === null) {
      message = `document: ${file}`;
      return draw();
    }
    // The viewer gets the terminal whole: the main screen, cooked mode, our keys not read meanwhile.
    paused = true;
    keyboard.setRawMode(false);
    terminal.write(LEAVE_SCREEN);
    const status = await runInteractive('sh', ['-c', `${viewer} "$1"`, 'top', file], { env: io.env });
    terminal.write(ENTER_SCREEN);
    keyboard.setRawMode(true);
    paused = false;
    message = status === 0 ? null : `${viewer} ended with ${status === null ? 'an error' : `exit code ${status}`} (${file})`;
    draw(true);
  }

  function onKeys(data: Buffer): void {
    const text = data.toString('utf8');
    if (paused) return;
    for (const key of keys(text)) {
      if (key === 'q' || key === '\x03' || key === '\x04') {
        finish();
        return;
      }
      if (key === 'j' || key === '\x1b[B' || key === '\x1bOB') move(1);
      else if (key === 'k' || key === '\x1b[A' || key === '\x1bOA') move(-1);
      else if (key === 'h') void handOff();
      else if (key === 'o') void open();
    }
  }

  terminal.write(ENTER_SCREEN);
  keyboard.setRawMode(true);
  keyboard.on('data', onKeys);
  keyboard.resume();
  const onResize = () => draw(true);
  terminal.on('resize', onResize);
  const onSignal = () => finish();
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  // The clock moves too (working turns idle after a minute): ask again at the interval.
  const timer = setInterval(() => void refresh(), intervalMs);
  draw(true);
  try {
    await done;
  } finally {
    clearInterval(timer);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    terminal.off('resize', onResize);
    keyboard.off('data', onKeys);
    keyboard.setRawMode(false);
    keyboard.pause();
    left = true;
    terminal.write(LEAVE_SCREEN);
    await feed.close();
  }
}

/** $PAGER, else $VISUAL, else $EDITOR; null: none set, so the path is shown instead. */
function viewerOf(env: Env): string | null {
  return env.PAGER?.trim() || env.VISUAL?.trim() || env.EDITOR?.trim() || null;
}

/** The keys in one read: an escape sequence (an arrow) is one key, every other character another. */
function keys(text: string): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; ) {
    const sequence = /^\x1b[[O][A-D]/.exec(text.slice(index));
    const key = sequence ? sequence[0] : text[index]!;
    out.push(key);
    index += key.length;
  }
  return out;
}
