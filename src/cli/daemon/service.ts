// `ai-zen-daemon service install|uninstall [--dry-run] [--json]`: start at login.
// Linux: a systemd user unit in ${XDG_CONFIG_HOME:-~/.config}/systemd/user/, then
// `systemctl --user daemon-reload` and `enable --now`; macOS: a launchd agent in
// ~/Library/LaunchAgents, then `launchctl bootstrap gui/<uid>`. When the service manager cannot be
// reached (no systemctl, no user manager: a container, an ssh session without lingering), the file
// is still written, the exact commands are printed, and install exits 1: the service is not enabled. Uninstall removes exactly what
// install wrote (the file, and systemctl's enable link to it) and is idempotent.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { AiZenError } from '../../errors.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { aiZenHome, homeFolder, hookShimPath, type Env, xdgFolder } from '../../paths.js';
import { runProcess } from '../../run-process.js';
import { readEnabled } from '../shared/enabled-repos.js';
import { ensureHookShim, shellWord } from './hook-shim.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import {
  LAUNCHD_LABEL,
  refuseSystemdUnsafe,
  renderLaunchdPlist,
  renderSystemdUnit,
  SERVICE_MARK,
  SYSTEMD_UNIT_NAME,
  type ServicePlatform,
} from './service-unit.js';

/** Where the service file goes and what it holds, for this user and this AI_ZEN_HOME. */
export interface ServiceFile {
  readonly platform: ServicePlatform;
  readonly file: string;
  readonly text: string;
}

export function servicePlatform(requested: string | undefined): ServicePlatform {
  const platform = requested ?? process.platform;
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw new AiZenError(
    'usage',
    `service install knows Linux (systemd) and macOS (launchd), not ${platform}: start ai-zen-daemon from your own login script`,
  );
}

function configHome(env: Env): string {
  return xdgFolder(env, 'XDG_CONFIG_HOME', '.config');
}

export function serviceFile(platform: ServicePlatform, env: Env): ServiceFile {
  const inputs = { shim: hookShimPath(env), home: aiZenHome(env) };
  if (platform === 'linux')
    return { platform, file: path.join(configHome(env), 'systemd', 'user', SYSTEMD_UNIT_NAME), text: renderSystemdUnit(inputs) };
  const file = path.join(env.HOME || homeFolder(), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  return { platform, file, text: renderLaunchdPlist(inputs, path.join(inputs.home, 'service.log')) };
}

/** Whether the installed service file is what install would write now (null: none installed). */
export async function serviceState(platform: ServicePlatform, env: Env): Promise<'current' | 'outdated' | 'not-ours' | null> {
  const wanted = serviceFile(platform, env);
  const text = await fs.readFile(wanted.file, 'utf8').catch(() => null);
  if (text === null) return null;
  if (text === wanted.text) return 'current';
  return text.includes(SERVICE_MARK) ? 'outdated' : 'not-ours';
}

type Step = { readonly args: readonly string[]; readonly mayFail?: boolean };

function uid(): number {
  return process.getuid?.() ?? 0;
}

function installSteps(platform: ServicePlatform, file: string): Step[] {
  if (platform === 'linux')
    return [{ args: ['systemctl', '--user', 'daemon-reload'] }, { args: ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT_NAME] }];
  // bootstrap refuses a label already loaded: a reinstall takes the old one out first.
  return [
    { args: ['launchctl', 'bootout', `gui/${uid()}/${LAUNCHD_LABEL}`], mayFail: true },
    { args: ['launchctl', 'bootstrap', `gui/${uid()}`, file] },
  ];
}

/**
 * `byHand`: what is left for the user when the manager did not answer — the file and its enable
 * link are gone by then, so `disable` has nothing to read; a loaded unit still stops.
 */
function uninstallSteps(platform: ServicePlatform): { before: Step[]; after: Step[]; byHand: Step[] } {
  if (platform === 'linux')
    return {
      before: [{ args: ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT_NAME] }],
      after: [{ args: ['systemctl', '--user', 'daemon-reload'] }],
      byHand: [{ args: ['systemctl', '--user', 'stop', SYSTEMD_UNIT_NAME] }, { args: ['systemctl', '--user', 'daemon-reload'] }],
    };
  const bootout: Step = { args: ['launchctl', 'bootout', `gui/${uid()}/${LAUNCHD_LABEL}`], mayFail: true };
  return { before: [bootout], after: [], byHand: [bootout] };
}

const commandLine = (step: Step) => step.args.map(shellWord).join(' ');

interface StepsOutcome {
  readonly ran: { command: string; ok: boolean; detail: string }[];
  /** What the user still has to run (from the first step that could not run). */
  readonly toRun: string[];
  /** Why the rest was not run. */
  readonly why: string | null;
}

/** Runs the steps in order; the first one that cannot run (no tool, no manager) leaves the rest to the user. */
async function runSteps(steps: readonly Step[], env: Env, dryRun: boolean): Promise<StepsOutcome> {
  const ran: StepsOutcome['ran'] = [];
  if (dryRun) return { ran, toRun: steps.map(commandLine), why: null };
  for (const [index, step] of steps.entries()) {
    const result = await runProcess(step.args[0]!, step.args.slice(1), { env, timeoutMs: 60_000 });
    const detail = (result.startError?.message ?? result.output).trim().split('\n')[0] ?? '';
    const ok = result.startError === null && result.exitCode === 0;
    ran.push({ command: commandLine(step), ok, detail });
    if (ok || step.mayFail) continue;
    const why =
      result.startError?.code === 'ENOENT'
        ? `${step.args[0]} is not on the PATH`
        : `${commandLine(step)} failed${detail ? `: ${detail}` : ` (exit ${result.exitCode})`}`;
    return {
      ran,
      toRun: steps
        .slice(index)
        .filter((rest) => !rest.mayFail)
        .map(commandLine),
      why,
    };
  }
  return { ran, toRun: [], why: null };
}

function renderSteps(outcome: StepsOutcome, dryRun: boolean): string {
  const lines = outcome.ran.filter((step) => step.ok).map((step) => `  ran: ${step.command}`);
  if (outcome.toRun.length > 0) {
    if (dryRun) lines.push(`  would run: ${outcome.toRun.join(' && ')}`);
    else
      lines.push(
        `  ${outcome.why ?? 'not run'}; run this yourself where your login's service manager answers:`,
        `    ${outcome.toRun.join(' && ')}`,
      );
  }
  return lines.map((line) => `${line}\n`).join('');
}

async function enabledSummary(env: Env): Promise<string> {
  const enabled = await readEnabled(env);
  const repos = enabled.repos.length === 1 ? '1 repo' : `${enabled.repos.length} repos`;
  const global = enabled.global
    ? "; enable --global is on: other repos get their daemon when an agent's session starts there, not at login"
    : '';
  const none = enabled.repos.length === 0 && !enabled.global ? ' (none yet: ai-zen-daemon enable in a repo)' : '';
  return `  at login it starts the daemons of the repos you enabled: ${repos} now${none}${global}\n`;
}

async function install(setup: CliSetup, platform: ServicePlatform, dryRun: boolean, json: boolean): Promise<void> {
  const { env } = setup.io;
  if (platform === 'linux') refuseSystemdUnsafe('AI_ZEN_HOME', aiZenHome(env));
  const wanted = serviceFile(platform, env);
  const current = await fs.readFile(wanted.file, 'utf8').catch(() => null);
  if (current !== null && !current.includes(SERVICE_MARK))
    throw new AiZenError('config', `${wanted.file} exists and was not written by ai-zen-daemon; move it away first`);
  const changed = current !== wanted.text;
  if (!dryRun) {
    // The service runs the shim, so it must name this ai-zen (and exist) before the manager runs it.
    await ensureHookShim(env);
    const folder = path.dirname(wanted.file);
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    if (changed) await writeFileInside(folder, path.basename(wanted.file), wanted.text, { mode: 0o644 });
  }
  const outcome = await runSteps(installSteps(platform, wanted.file), env, dryRun);
  if (json) {
    await writeOut(setup.io.stdout, `${JSON.stringify({ action: 'install', ...wanted, changed, dryRun, ...outcome }, null, 2)}\n`);
  } else {
    const head = dryRun
      ? `ai-zen-daemon: would write ${wanted.file}${changed ? '' : ' (unchanged)'}:\n\n${wanted.text}\n`
      : `ai-zen-daemon: ${changed ? 'wrote' : 'already installed:'} ${wanted.file}\n`;
    await writeOut(setup.io.stdout, head + (await enabledSummary(env)) + renderSteps(outcome, dryRun));
  }
  // Written is not enabled: nothing starts at login until those commands run, and a script must know.
  if (!dryRun && outcome.toRun.length > 0)
    throw new AiZenError(
      'daemon',
      `${wanted.file} is written but not enabled: ${outcome.why ?? 'the service manager was not asked'}; run ${outcome.toRun.join(' && ')} where your login's service manager answers`,
    );
}

/** systemctl enable's link to our unit (null: the unit is not enabled), as `systemctl --user enable` makes it. */
export async function enableLinkOf(file: string): Promise<string | null> {
  const link = path.join(path.dirname(file), 'default.target.wants', path.basename(file));
  const target = await fs.readlink(link).catch(() => null);
  return target !== null && path.resolve(path.dirname(link), target) === file ? link : null;
}

/** systemctl enable's link to our unit; removed with it when no manager was there to do it. */
async function removeEnableLink(file: string, dryRun: boolean): Promise<string | null> {
  const link = await enableLinkOf(file);
  if (link === null) return null;
  if (!dryRun) await fs.rm(link, { force: true });
  return link;
}

export async function uninstallService(setup: CliSetup, platform: ServicePlatform, dryRun: boolean, json: boolean): Promise<void> {
  const { env } = setup.io;
  const { file } = serviceFile(platform, env);
  const current = await fs.readFile(file, 'utf8').catch(() => null);
  if (current !== null && !current.includes(SERVICE_MARK))
    throw new AiZenError('config', `${file} was not written by ai-zen-daemon; left alone`);
  if (current === null) {
    const message = `ai-zen-daemon: no ai-zen service installed (${file})\n`;
    await writeOut(
      setup.io.stdout,
      json
        ? `${JSON.stringify({ action: 'uninstall', platform, file, changed: false, dryRun, ran: [], toRun: [], why: null }, null, 2)}\n`
        : message,
    );
    return;
  }
  const steps = uninstallSteps(platform);
  const before = await runSteps(steps.before, env, dryRun);
  const link = platform === 'linux' ? await removeEnableLink(file, dryRun) : null;
  if (!dryRun) await fs.rm(file, { force: true });
  // After the file is gone: reload only when the manager answered before.
  const after =
    before.toRun.length === 0 || dryRun
      ? await runSteps(steps.after, env, dryRun)
      : { ran: [], toRun: steps.byHand.map(commandLine), why: null };
  const outcome: StepsOutcome = {
    ran: [...before.ran, ...after.ran],
    toRun: dryRun ? [...before.toRun, ...after.toRun] : after.toRun,
    why: before.why ?? after.why,
  };
  if (json) {
    const removed = [file, ...(link ? [link] : [])];
    await writeOut(
      setup.io.stdout,
      `${JSON.stringify({ action: 'uninstall', platform, file, removed, changed: true, dryRun, ...outcome }, null, 2)}\n`,
    );
    return;
  }
  const removed = `${dryRun ? 'would remove' : 'removed'} ${file}${link ? ` and ${link}` : ''}`;
  await writeOut(setup.io.stdout, `ai-zen-daemon: ${removed}\n${renderSteps(outcome, dryRun)}`);
}

export function registerServiceCommand(program: Command, setup: CliSetup): void {
  const service = program
    .command('service')
    .description('start the daemons of your enabled repos at login (systemd user unit, launchd agent)');
  for (const action of ['install', 'uninstall'] as const)
    service
      .command(action)
      .description(
        action === 'install'
          ? 'write the unit (Linux) or agent (macOS) that runs ai-zen-daemon start --enabled at login, and enable it'
          : 'disable it and remove exactly what install wrote',
      )
      .option('--dry-run', 'print what would be written and run; change nothing')
      .option('--json', 'one JSON object, for scripts')
      // For tests and for preparing another machine's file: the platform whose service is written.
      .addOption(new Option('--platform <platform>').hideHelp())
      .action(async (options: { dryRun?: boolean; json?: boolean; platform?: string }) => {
        const platform = servicePlatform(options.platform);
        const run = action === 'install' ? install : uninstallService;
        await run(setup, platform, options.dryRun === true, options.json === true);
      });
}
