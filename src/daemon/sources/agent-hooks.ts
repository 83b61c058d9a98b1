// ai-zen's hooks in another agent's settings (agent-module.ts): what `install-hooks`,
// `uninstall-hooks`, `hook` and `doctor` need of each agent, and the capabilities only some agents
// have (an MCP entry, a statusline, a trust step), each null where the agent has none.
import type { Env } from '../../paths.js';
import type { SettingsSyntax } from './settings-jsonc.js';

/**
 * ai-zen's hook events; each agent's own events map onto them (Gemini's AfterAgent is Stop). Every
 * agent gets the first three; UserPromptSubmit only where a SessionStart's context does not reach
 * the model after `/clear` (Gemini): the successor's first prompt carries the breakpoint instead.
 */
export type HookEvent = 'Stop' | 'PreCompact' | 'SessionStart' | 'UserPromptSubmit';
export const HOOK_EVENTS: readonly HookEvent[] = ['Stop', 'PreCompact', 'SessionStart', 'UserPromptSubmit'];
/** The events every agent's hooks answer. */
export const CORE_HOOK_EVENTS: readonly HookEvent[] = ['Stop', 'PreCompact', 'SessionStart'];

/** What a hook's stdin says, in ai-zen's terms (Claude Code's field names). */
export interface HookInput {
  readonly transcript_path?: string;
  readonly session_id?: string;
  readonly cwd?: string;
  readonly stop_hook_active?: boolean;
  readonly trigger?: string;
  readonly source?: string;
  /** A script runs the session (`pi -p`): said by the hook where the agent's transcript does not say it. */
  readonly scripted?: boolean;
}

/** Where a change to an agent's settings went, and whether anything changed. */
export interface SettingsChange {
  readonly file: string;
  readonly changed: boolean;
}

/**
 * ai-zen's hooks in an agent's settings, as `install-hooks`, `uninstall-hooks`, `hook` and `doctor`
 * use them. Every field is required: a capability the agent lacks is null, so a new agent that
 * forgets one does not compile, and none falls back on another agent's behaviour.
 */
export interface AgentHooks {
  /**
   * 'repo': the hooks go in the project's own files (kept out of git); 'user': in the agent's user
   * file, one install for every repo (the `root` the calls get is then the folder the command ran in).
   */
  readonly scope: 'repo' | 'user';
  /**
   * Adds ai-zen's hooks (and only those) to the agent's settings; `command(event)` is what a hook
   * runs. `what`: said after the file's name when they went in ('' for nothing); `notes`: lines after.
   */
  install(input: {
    readonly root: string;
    readonly env: Env;
    readonly command: (event: HookEvent) => string;
  }): Promise<SettingsChange & { readonly what: string; readonly notes: readonly string[] }>;
  /** Removes ai-zen's hooks, and only those. */
  uninstall(input: { readonly root: string; readonly env: Env }): Promise<SettingsChange>;
  /** Where ai-zen's hooks may be (root null: outside any repo, the user's files only), for doctor. */
  settingsFiles(input: { readonly root: string | null; readonly env: Env }): readonly HookSettingsFile[];
  /**
   * The agent's hook stdin in ai-zen's terms; null: not a hook input to answer. It may wait (in the
   * hook's process) for what the agent has yet to write (Qwen Code).
   */
  readInput(raw: unknown): HookInput | null | Promise<HookInput | null>;
  /** The daemon's answer (Claude Code's shape: `{decision: 'block', reason}`, `hookSpecificOutput`) as this agent's hook must print it. */
  writeOutput(event: HookEvent, output: Record<string, unknown>): Record<string, unknown> | null;
  /** The entry that starts `ai-zen-daemon mcp` for the agent's sessions; null: none. */
  readonly mcp: McpEntry | null;
  /** ai-zen's statusline in the agent; null: none. */
  readonly statusLine: StatusLineEntry | null;
  /** The agent runs a hook only once the person trusted it, and ai-zen can do that for its own (`--trust`); null: no such step. */
  readonly trust: HookTrust | null;
}

/** What a hook of ours says it runs, and what else is wrong with ours, in one place. */
export interface OurHooks {
  readonly commands: readonly string[];
  readonly problems: readonly string[];
}

/**
 * One place where hooks of ours may be, and how ours are found in it: a JSON settings file (most
 * agents), or one hook script of ours in the agent's hooks folder (Cline runs each file there).
 */
export type HookSettingsFile = HookSettingsJson | HookScriptFile;

interface HookPlace {
  readonly file: string;
  /** How messages name it (relative to the repo for a repo's file). */
  readonly shown: string;
  /** A file install never writes (the repo's shared settings): a hook of ours there is to be taken out by hand. */
  readonly shared: boolean;
}

export interface HookSettingsJson extends HookPlace {
  readonly format: 'json';
  /** How the agent reads it: strict JSON, or with comments (settings-jsonc.ts). */
  readonly syntax: SettingsSyntax;
  /** The commands of ai-zen's hooks in these settings (pi: in the extension they name), and what else is wrong with ours. */
  ours(settings: Record<string, unknown>): Promise<OurHooks>;
}

export interface HookScriptFile extends HookPlace {
  readonly format: 'script';
  /** The commands of the script (none: it is not one of ours, the person's own of that name). */
  ours(text: string): Promise<OurHooks>;
}

export interface McpEntry {
  /** The file the entry goes in (noted before install writes it, so uninstall can put it back). */
  file(input: { readonly root: string; readonly env: Env }): string;
  /** Adds the server (`shim mcp`); `taken`: the person has a server of their own by that name, left as it is. */
  install(input: {
    readonly root: string;
    readonly env: Env;
    readonly shim: string;
  }): Promise<SettingsChange & { readonly taken: boolean }>;
  uninstall(input: { readonly root: string; readonly env: Env }): Promise<SettingsChange>;
}

export type StatusLineInstall =
  | { readonly state: 'installed' | 'already'; readonly file: string }
  /** The user's own statusline, left as it was; `chained`: it already runs ours after theirs. */
  | { readonly state: 'theirs'; readonly file: string; readonly command: string; readonly chained: boolean };

export interface StatusLineEntry {
  /** `command` runs ai-zen's statusline (`shim statusline`). */
  install(input: { readonly root: string; readonly env: Env; readonly command: string }): Promise<StatusLineInstall>;
  uninstall(input: { readonly root: string; readonly env: Env }): Promise<SettingsChange>;
  /** What the line shows, said when it went in. */
  readonly shows: string;
}

export interface HookTrust {
  /** `--trust`'s help for this agent. */
  readonly option: string;
  /** Trusts ai-zen's hooks and only those; the line that says what was done. */
  trust(input: { readonly cwd: string; readonly env: Env; readonly version: string }): Promise<string>;
  /** The line install says without `--trust`: how the person trusts the hooks. */
  readonly hint: string;
}
