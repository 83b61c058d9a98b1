// The chat as a person meets it: the built `ai-zen` in a real pseudo-terminal (a private tmux
// server), in a real temp git repo with its own AI_ZEN_HOME, talking to the fake model server.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseSessionLine } from '../../../src/session/parse-line.js';
import type { SessionLine } from '../../../src/session/format.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai.js';
import { CLI_PATH } from '../../support/run-cli.js';
import { makeTempRepo, type TempRepo } from '../../support/temp-repo.js';
import { startTmux, type TmuxSession } from '../../support/tmux.js';

export const API_KEY = 'sk-test-chat';

/** The prompt with the status line under it, at the bottom of the screen: the chat is waiting for input. */
export const READY = /\n› ?\n── ~?\d+% context[^\n]*──$/;

export interface ChatFixture {
  readonly repo: TempRepo;
  readonly fake: FakeOpenAI;
  /** Set once `open` has started the CLI. */
  term: TmuxSession;
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts `ai-zen <args>` in a fresh pseudo-terminal and waits for its prompt. */
  open(
    args?: string[],
    options?: { env?: Record<string, string>; waitForPrompt?: boolean; width?: number; height?: number },
  ): Promise<TmuxSession>;
  /** Types a line and presses Enter. */
  say(text: string): Promise<void>;
  /** Ids of the session files on disk. */
  sessionIds(): Promise<string[]>;
  /** Every line of a session file, each checked against the v1 schemas (throws on an invalid one). */
  sessionLines(id: string): Promise<SessionLine[]>;
  latestId(): Promise<string>;
  handoffDocs(): Promise<string[]>;
  dispose(): Promise<void>;
}

export async function makeChatFixture(options: { maxContextTokens?: number } = {}): Promise<ChatFixture> {
  const repo = await makeTempRepo();
  const fake = await startFakeOpenAI({ apiKey: API_KEY });
  const aiZen = path.join(repo.root, '.ai-zen');
  if (options.maxContextTokens !== undefined) {
    await fs.mkdir(aiZen, { recursive: true });
    await fs.writeFile(path.join(aiZen, 'config.json'), JSON.stringify({ maxContextTokens: options.maxContextTokens }));
  }
  const terms: TmuxSession[] = [];
  const fixture: ChatFixture = {
    repo,
    fake,
    term: undefined as unknown as TmuxSession,
    env: (extra = {}) => ({
      AI_ZEN_HOME: repo.home,
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: fake.baseURL,
      AI_ZEN_MODEL: 'test-model',
      ...extra,
    }),
    async open(args = [], openOptions = {}) {
      const term = await startTmux({
        command: [process.execPath, CLI_PATH, ...args],
        cwd: repo.root,
        env: openOptions.env ?? fixture.env(),
        ...(openOptions.width !== undefined ? { width: openOptions.width } : {}),
        ...(openOptions.height !== undefined ? { height: openOptions.height } : {}),
      });
      terms.push(term);
      fixture.term = term;
      if (openOptions.waitForPrompt !== false) await term.waitForScreen(READY);
      return term;
    },
    async say(text) {
      await fixture.term.type(text);
      await fixture.term.sendKeys('Enter');
    },
    async sessionIds() {
      const names = await fs.readdir(path.join(aiZen, 'sessions')).catch(() => [] as string[]);
      return names.filter((name) => name.endsWith('.jsonl')).map((name) => name.replace(/\.jsonl$/, ''));
    },
    async sessionLines(id) {
      const text = await fs.readFile(path.join(aiZen, 'sessions', `${id}.jsonl`), 'utf8');
      if (!text.endsWith('\n')) throw new Error(`session ${id} does not end with a newline`);
      return text
        .trimEnd()
        .split('\n')
        .map((raw) => {
          const parsed = parseSessionLine(raw);
          if (!parsed.ok) throw new Error(`invalid session line: ${parsed.reason}: ${raw}`);
          return parsed.line;
        });
    },
    async latestId() {
      return (JSON.parse(await fs.readFile(path.join(aiZen, 'latest-session.json'), 'utf8')) as { id: string }).id;
    },
    async handoffDocs() {
      const names = await fs.readdir(path.join(aiZen, 'handoffs')).catch(() => [] as string[]);
      return names
        .filter((name) => name.endsWith('.md'))
        .map((name) => `.ai-zen/handoffs/${name}`)
        .sort();
    },
    async dispose() {
      for (const term of terms) await term.kill();
      await fake.close();
      await repo.cleanup();
    },
  };
  return fixture;
}

/** Message roles of a session, `*` marking definition messages. */
export function roles(lines: readonly SessionLine[]): string[] {
  return lines.map((line) => (line.type === 'message' ? `${line.message.role}${line.definition ? '*' : ''}` : line.type));
}
