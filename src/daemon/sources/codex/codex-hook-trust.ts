// `install-hooks codex --trust` (X3): Codex runs a hook only once the user trusted it,
// and keeps that trust per hook, keyed by its place in its file and pinned to a hash of its content
// (`[hooks.state."<file>:<event>:<group>:<hook>"] trusted_hash` in config.toml). ai-zen never
// computes that hash: it asks Codex's own app-server (`codex app-server`, JSON-RPC over stdio, the
// interface Codex's `/hooks` screen uses) for the hooks it sees (`hooks/list`) and writes back, for
// ai-zen's hooks in the user's hooks.json only, the hash Codex reported (`config/batchWrite`), then
// lists again to see them trusted. Any other hook keeps the trust it had. Checked with 0.171.
import path from 'node:path';
import { type JsonLinesRpc, startJsonLinesRpc } from '../../../json-lines-rpc.js';
import { codexHomeFolder, type Env } from '../../../paths.js';

export interface CodexHookTrustOptions {
  /** The program to run: `codex` on the PATH unless told otherwise. */
  readonly codex: string;
  readonly cwd: string;
  readonly env: Env;
  readonly version: string;
  readonly timeoutMs?: number;
}

interface ListedEntry {
  readonly hooks?: ListedHook[];
  readonly errors?: { readonly message?: string }[];
}

/** A hook as Codex's /hooks screen lists it: its key (its place), command, file, hash and trust. */
export interface ListedHook {
  readonly key: string;
  readonly command?: string;
  readonly sourcePath: string;
  readonly currentHash: string;
  readonly trustStatus: string;
}

/** What Codex lists from `cwd`: every hook it sees, and what it says is wrong with its hook files. */
type List = () => Promise<{ readonly hooks: ListedHook[]; readonly problems: string[] }>;

/** Every hook Codex sees from `cwd`, with its key and trust (tests). */
export function listCodexHooks(options: CodexHookTrustOptions): Promise<ListedHook[]> {
  return withAppServer(options, async (list) => (await list()).hooks);
}

/**
 * Trusts the hooks of the user's hooks.json whose command `which` picks (ai-zen's only, but for a test
 * acting as the user); returns the keys newly trusted and those trusted before.
 */
export function trustCodexHooks(
  options: CodexHookTrustOptions,
  which: (command: string) => boolean,
): Promise<{ trusted: string[]; already: string[] }> {
  const file = path.resolve(codexHomeFolder(options.env), 'hooks.json');
  return withAppServer(options, async (list, server) => {
    const picked = (hooks: ListedHook[]) =>
      hooks.filter((hook) => path.resolve(hook.sourcePath) === file && typeof hook.command === 'string' && which(hook.command));
    const listed = await list();
    const before = picked(listed.hooks);
    if (before.length === 0)
      throw new Error(
        `Codex does not see those hooks in ${file}${listed.problems.length > 0 ? ` (Codex says: ${listed.problems.join('; ')})` : ''}`,
      );
    const untrusted = before.filter((hook) => hook.trustStatus !== 'trusted');
    if (untrusted.length > 0) {
      const value = Object.fromEntries(untrusted.map((hook) => [hook.key, { trusted_hash: hook.currentHash }]));
      await server.call('config/batchWrite', {
        edits: [{ keyPath: 'hooks.state', value, mergeStrategy: 'upsert' }],
        expectedVersion: null,
      });
      const still = picked((await list()).hooks).filter((hook) => hook.trustStatus !== 'trusted');
      if (still.length > 0) throw new Error(`Codex still reports ${still.map((hook) => `${hook.key} ${hook.trustStatus}`).join(', ')}`);
    }
    return {
      trusted: untrusted.map((hook) => hook.key),
      already: before.filter((hook) => hook.trustStatus === 'trusted').map((hook) => hook.key),
    };
  });
}

/** One step with Codex's app-server: started, initialized, asked, closed. */
async function withAppServer<T>(options: CodexHookTrustOptions, step: (list: List, server: JsonLinesRpc) => Promise<T>): Promise<T> {
  const server = startJsonLinesRpc(options.codex, ['app-server'], {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs ?? 30_000,
    notFound: `${options.codex} was not found; trust the hooks in Codex instead (/hooks)`,
  });
  try {
    await server.call('initialize', { clientInfo: { name: 'ai-zen', version: options.version } });
    server.notify('initialized');
    return await step(async () => {
      const { data = [] } = (await server.call('hooks/list', { cwds: [options.cwd] })) as { data?: ListedEntry[] };
      const problems = data.flatMap((entry) => (entry.errors ?? []).map((error) => error.message ?? String(error)));
      return { hooks: data.flatMap((entry) => entry.hooks ?? []), problems };
    }, server);
  } finally {
    server.close();
  }
}
