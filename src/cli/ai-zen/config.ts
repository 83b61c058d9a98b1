// `ai-zen config [--json]`: the effective config of this repo and, for each value,
// where it came from — a built-in default, the user's config file, the repo's `.ai-zen/config.json`,
// an environment variable or the command line — and what an untrusted repo tried to set. The
// sources are the loader's own record (config-sources.ts), so this can never disagree with what
// the chat, print mode and the daemon actually use. Secrets are never printed.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ConfigSource } from '../../config/config-sources.js';
import { describeSource } from '../../config/config-sources.js';
import { loadConfig, type Config } from '../../config/load-config.js';
import { describeTrust } from '../../config/trust.js';
import { findProjectRoot } from '../shared/project-root.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

/** Settings whose value is never shown: only whether they are set, and from where. */
const SECRETS = new Set(['apiKey']);

const Source = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('default') }),
  z.object({ kind: z.literal('user'), file: z.string() }),
  z.object({ kind: z.literal('project'), file: z.string() }),
  z.object({ kind: z.literal('env'), variable: z.string() }),
  z.object({ kind: z.literal('flag'), flag: z.string() }),
]);

/** What `ai-zen config --json` prints (published as schemas/config-report.v1.schema.json). */
export const ConfigReport = z.object({
  v: z.literal(1),
  /** The repo (its real path) whose config this is. */
  root: z.string(),
  /** The config files that were read, the user's first. */
  files: z.array(z.string()),
  trust: z.enum(['not-needed', 'trusted', 'untrusted', 'changed']),
  /** Every effective setting by dotted name (`model`, `daemon.commit`, `agents.codex.handoffAt`). */
  settings: z.record(
    z.string(),
    z.object({
      /** The value; for a secret (`apiKey`) only "set", or null when unset. */
      value: z.unknown(),
      /** Present and true when the value is withheld. */
      secret: z.literal(true).optional(),
      source: Source,
    }),
  ),
  /** What the repo's config tried to set and was not applied (the repo is not trusted). */
  ignored: z.array(z.object({ key: z.string(), file: z.string(), reason: z.string() })),
  /** The repo's config names an endpoint it may not choose: nothing is sent anywhere (null otherwise). */
  refusedEndpoint: z.string().nullable(),
});
export type ConfigReport = z.infer<typeof ConfigReport>;

export function registerConfigCommand(program: Command, setup: CliSetup): void {
  program
    .command('config')
    .description('print the effective config of this repo and where each value came from (secrets are not shown)')
    .option('--json', 'one JSON object, for scripts')
    .option('-m, --model <name>', 'as the chat or -p would be run with --model')
    .action(async (options: { json?: boolean; model?: string }, command: Command) => {
      // `ai-zen --model x config` gives the root's --model; `ai-zen config --model x` this command's.
      const model = options.model ?? (command.parent?.opts() as { model?: string } | undefined)?.model;
      const root = await findProjectRoot(setup.io.cwd, setup.io.env);
      const config = await loadConfig({ root, env: setup.io.env, overrides: model !== undefined ? { model } : {} });
      const report = configReport(config);
      await writeOut(setup.io.stdout, options.json ? `${JSON.stringify(report, null, 2)}\n` : renderConfig(report, config));
    });
}

export function configReport(config: Config): ConfigReport {
  const settings: ConfigReport['settings'] = {};
  for (const key of orderedKeys(config.sources)) {
    const source = config.sources[key] as ConfigSource;
    const value = valueAt(config, key);
    settings[key] = SECRETS.has(key)
      ? { value: value === null || value === undefined ? null : 'set', secret: true, source }
      : { value: key === 'baseURL' && typeof value === 'string' ? withoutPassword(value) : value, source };
  }
  return {
    v: 1,
    root: config.trust.root,
    files: [...config.files],
    trust: config.trust.state,
    settings,
    ignored: config.ignoredSettings.map((entry) => ({ ...entry })),
    refusedEndpoint: config.refusedEndpoint,
  };
}

export function renderConfig(report: ConfigReport, config: Config): string {
  const lines = [
    `ai-zen config for ${report.root}`,
    `  files read: ${report.files.length > 0 ? report.files.join(', ') : 'none (built-in defaults and the environment only)'}`,
    `  trust: ${describeTrust(config.trust)}`,
    '',
  ];
  const width = Math.max(...Object.keys(report.settings).map((key) => key.length), 10);
  for (const [key, entry] of Object.entries(report.settings)) {
    const unset = entry.value === null;
    const shown = unset ? 'not set' : entry.secret ? 'set (not shown)' : JSON.stringify(entry.value);
    const note = key === 'maxContextTokens' && entry.source.kind === 'default' ? ` for the model ${config.model}` : '';
    lines.push(`  ${key.padEnd(width)}  ${shown.padEnd(24)}  ${unset ? '' : `from ${describeSource(entry.source)}${note}`}`.trimEnd());
  }
  for (const entry of report.ignored)
    lines.push(`  ${entry.key.padEnd(width)}  ignored: set in ${entry.file}, but ${entry.reason} (trust it with: ai-zen-daemon trust)`);
  if (report.refusedEndpoint !== null) lines.push('', `  ${report.refusedEndpoint}`);
  return `${lines.join('\n')}\n`;
}

/** Top-level settings first, then the daemon's, then each agent's — each in the loader's order. */
function orderedKeys(sources: Readonly<Record<string, ConfigSource>>): string[] {
  const rank = (key: string) => (key.startsWith('agents.') ? 2 : key.includes('.') ? 1 : 0);
  return Object.keys(sources)
    .map((key, index) => ({ key, index }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.index - b.index)
    .map(({ key }) => key);
}

/** The value of a dotted setting name; a model name in `agents.<agent>.models.<model>` may itself hold dots. */
function valueAt(config: Config, key: string): unknown {
  const models = /^agents\.([^.]+)\.models\.(.+)$/.exec(key);
  if (models) return (config.agents as Record<string, { models: Record<string, unknown> }>)[models[1] ?? '']?.models[models[2] ?? ''];
  let value: unknown = config;
  for (const part of key.split('.'))
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value ?? null;
}

/** An endpoint may carry a password in its URL: that part is a secret too. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
