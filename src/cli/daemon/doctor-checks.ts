// The checks of `ai-zen-daemon doctor` but the hooks' (doctor-hooks.ts): Node, the
// hook shim, dead daemon sockets, untrusted repos, config errors, the login service. Each says
// what it found and, for a problem, the one line that fixes it; none changes anything.
import { hashRealPath } from '../../lock/lock-names.js';
import { recordedRepoOf } from '../../daemon/process/daemon-repo-record.js';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { readConfigFile, loadConfig } from '../../config/load-config.js';
import { checkTrust, describeTrust, TRUST_COMMAND } from '../../config/trust.js';
import { describeError } from '../../errors.js';
import { packageRoot, projectPaths, runFolder, userConfigPath, type Env } from '../../paths.js';
import { runProcess } from '../../run-process.js';
import { enableLinkOf, serviceFile, serviceState } from './service.js';
import type { Finding } from './doctor-finding.js';
import { enabledPath, readEnabled, type Enabled } from '../shared/enabled-repos.js';
import { hookShimState, DAEMON_SCRIPT } from './hook-shim.js';
import { shellWord } from './hook-shim.js';

type Version = readonly [number, number, number];

function parseVersion(text: string): Version | null {
  const match = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text);
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : null;
}

const atLeast = (version: Version, minimum: Version) => {
  for (let index = 0; index < 3; index += 1) if (version[index] !== minimum[index]) return version[index]! > minimum[index]!;
  return true;
};

/** package.json's `engines.node` (a `>=x.y` range): the one statement of which Node ai-zen needs. */
async function nodeRange(): Promise<{ text: string; minimum: Version } | null> {
  try {
    const text = (JSON.parse(await fs.readFile(path.join(packageRoot(), 'package.json'), 'utf8')) as { engines?: { node?: string } })
      .engines?.node;
    const minimum = text && /^>=\s*[\d.]+$/.test(text.trim()) ? parseVersion(text) : null;
    return text && minimum ? { text, minimum } : null;
  } catch {
    return null;
  }
}

/**
 * The Node running this command and the `node` on the PATH: a global install's `ai-zen` runs the
 * PATH's (`#!/usr/bin/env node`), and the hook shim falls back to it when its own Node is gone.
 */
export async function checkNode(env: Env): Promise<Finding[]> {
  const range = await nodeRange();
  if (range === null) return [];
  const fix = `install Node ${range.text} (e.g. nvm install 22) and put it first on the PATH`;
  const findings: Finding[] = [];
  const running = parseVersion(process.versions.node)!;
  findings.push(
    atLeast(running, range.minimum)
      ? { check: 'node', status: 'ok', message: `node v${process.versions.node} runs this (ai-zen needs ${range.text})`, fix: null }
      : { check: 'node', status: 'problem', message: `node v${process.versions.node} runs this; ai-zen needs ${range.text}`, fix },
  );
  const onPath = await runProcess('node', ['--version'], { env, timeoutMs: 20_000 });
  const version = onPath.exitCode === 0 ? parseVersion(onPath.stdout) : null;
  if (version === null)
    findings.push({
      check: 'node',
      status: 'note',
      message: 'no working node on the PATH: a global install of ai-zen (ai-zen, ai-zen-daemon) needs one',
      fix: null,
    });
  else if (!atLeast(version, range.minimum))
    findings.push({
      check: 'node',
      status: 'problem',
      message: `the node on the PATH is ${onPath.stdout.trim()}; ai-zen needs ${range.text} (its commands run with it)`,
      fix,
    });
  return findings;
}

/** Whether the shim the hooks and the service run points at an ai-zen that is there. */
export async function checkShim(env: Env, needed: boolean, shim: string): Promise<Finding[]> {
  const state = await hookShimState(env);
  const fix = 'ai-zen-daemon enable (or install-hooks claude|codex) points it at this ai-zen';
  switch (state) {
    case 'current':
      return [{ check: 'shim', status: 'ok', message: `${shim} runs this ai-zen`, fix: null }];
    case 'other':
      return [
        {
          check: 'shim',
          status: 'note',
          message: `${shim} runs another ai-zen installed here, not this one (${DAEMON_SCRIPT})`,
          fix: null,
        },
      ];
    case 'missing':
      return needed
        ? [
            {
              check: 'shim',
              status: 'problem',
              message: `${shim} is missing, and hooks, the login service or an enabled repo's agents need it`,
              fix,
            },
          ]
        : [];
    case 'stale':
      return [{ check: 'shim', status: 'problem', message: `${shim} runs an ai-zen that is no longer there`, fix }];
    case 'changed':
      return [
        {
          check: 'shim',
          status: 'problem',
          message: `${shim} is not what ai-zen last wrote there: something changed it since, and every hook of ai-zen's runs it`,
          fix: `read ${shim} for what was added; ai-zen-daemon enable writes ai-zen's back`,
        },
      ];
  }
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: socketPath });
    const done = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Daemon sockets and locks in the run folder that no process answers on: a daemon that died (kill -9,
 * a crash, a reboot). Each is named by its repo — as its daemon recorded it, else one of `knownRepos`
 * (this repo, the enabled ones) whose hash it is — or said plainly to be of a repo that cannot be named.
 */
export async function checkSockets(env: Env, knownRepos: readonly string[] = []): Promise<Finding[]> {
  const folder = runFolder(env);
  const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((name) =>
    /^d-[0-9a-f]{16}\.sock$|^daemon-[0-9a-f]{24}\.lock$/.test(name),
  );
  const silent: string[] = [];
  for (const name of names) if (!(await answers(path.join(folder, name)))) silent.push(path.join(folder, name));
  // A clean stop removes the daemon's socket but leaves its lock (the kernel frees it with the
  // process; the next start takes it over): a lock is dead only beside its dead socket (a kill -9).
  const silentSockets = new Set(silent.map((file) => path.basename(file)).filter((name) => name.startsWith('d-')));
  const leftover = (file: string) => {
    const lock = /^daemon-([0-9a-f]{16})[0-9a-f]{8}\.lock$/.exec(path.basename(file));
    return lock !== null && !silentSockets.has(`d-${lock[1]}.sock`);
  };
  const dead = silent.filter((file) => !leftover(file));
  if (dead.length === 0)
    return [
      { check: 'sockets', status: 'ok', message: `no dead daemon socket in ${folder} (${names.length - silent.length} live)`, fix: null },
    ];
  const byHash = new Map<string, string[]>();
  for (const file of dead) {
    const hash = /^(?:d-|daemon-)([0-9a-f]{16})/.exec(path.basename(file))![1]!;
    byHash.set(hash, [...(byHash.get(hash) ?? []), path.basename(file)]);
  }
  const known = new Map(knownRepos.map((repo) => [hashRealPath(repo, 16), repo]));
  const daemons: string[] = [];
  for (const [hash, files] of byHash) {
    const repo = (await recordedRepoOf(hash, env).catch(() => null)) ?? known.get(hash) ?? null;
    daemons.push(`${repo ?? 'a repo that cannot be named'} (${files.join(', ')})`);
  }
  return [
    {
      check: 'sockets',
      status: 'problem',
      message: `${daemons.length} dead daemon${daemons.length === 1 ? '' : 's'} (no daemon answers on the socket): ${daemons.join('; ')}`,
      fix: `rm ${dead.map(shellWord).join(' ')}`,
    },
  ];
}

/** This repo and every enabled one: an untrusted repo's hooks, skills and config choices are ignored. */
export async function checkTrustOf(roots: readonly string[], env: Env): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const root of roots) {
    const verdict = await checkTrust(root, env).catch(() => null);
    if (verdict === null) continue;
    if (verdict.state === 'untrusted' || verdict.state === 'changed')
      findings.push({
        check: 'trust',
        status: 'problem',
        message: `${root} is ${describeTrust(verdict)}`,
        fix: `look at ${root}/.ai-zen (hooks, skills, config.json), then: cd ${shellWord(root)} && ${TRUST_COMMAND}`,
      });
    else findings.push({ check: 'trust', status: 'ok', message: `${root}: ${describeTrust(verdict)}`, fix: null });
  }
  return findings;
}

/** The user's config, this repo's, enabled.json and what loading them together refuses (an apiKey in the repo, a bad OPENAI_BASE_URL). */
export async function checkConfig(root: string | null, env: Env): Promise<{ findings: Finding[]; enabled: Enabled }> {
  const findings: Finding[] = [];
  const files = [userConfigPath(env), ...(root ? [projectPaths(root).config] : [])];
  let filesOk = true;
  for (const file of files) {
    const problem = await readConfigFile(file).then(
      () => null,
      (error: unknown) => describeError(error),
    );
    if (problem === null) continue;
    filesOk = false;
    findings.push({ check: 'config', status: 'problem', message: problem, fix: `fix ${file} (see docs/configuration.md) or move it away` });
  }
  if (filesOk && root) {
    const problem = await loadConfig({ root, env }).then(
      () => null,
      (error: unknown) => describeError(error),
    );
    if (problem !== null) findings.push({ check: 'config', status: 'problem', message: problem, fix: 'do what the message says' });
  }
  let enabled: Enabled = { global: false, repos: [] };
  try {
    enabled = await readEnabled(env);
  } catch (error) {
    findings.push({
      check: 'config',
      status: 'problem',
      message: describeError(error),
      fix: `remove ${enabledPath(env)}, then ai-zen-daemon enable again in each repo`,
    });
  }
  for (const repo of enabled.repos)
    if (!(await fs.stat(repo).catch(() => null))?.isDirectory())
      findings.push({
        check: 'config',
        status: 'problem',
        message: `${repo} is enabled but no longer there (moved or deleted)`,
        fix: `remove ${JSON.stringify(repo)} from ${enabledPath(env)} (and ai-zen-daemon enable in its new place)`,
      });
  if (findings.length === 0)
    findings.push({ check: 'config', status: 'ok', message: `${files.join(', ')}: valid where present`, fix: null });
  return { findings, enabled };
}

/** The login service, when installed: is it what `service install` writes now? */
export async function checkService(env: Env): Promise<Finding[]> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return [];
  const state = await serviceState(process.platform, env);
  const { file } = serviceFile(process.platform, env);
  // Linux: a unit systemd never enabled starts nothing at login, however current its text (launchd keeps no such mark).
  if (state === 'current' && process.platform === 'linux' && (await enableLinkOf(file)) === null)
    return [
      {
        check: 'service',
        status: 'problem',
        message: `${file} is installed but not enabled: nothing starts it at login`,
        fix: "systemctl --user enable --now ai-zen.service (where your login's service manager answers), or ai-zen-daemon service install",
      },
    ];
  if (state === 'current') return [{ check: 'service', status: 'ok', message: `${file} is up to date and enabled`, fix: null }];
  if (state === 'outdated')
    return [
      {
        check: 'service',
        status: 'problem',
        message: `${file} is not what service install writes now (an older ai-zen, or another AI_ZEN_HOME)`,
        fix: 'ai-zen-daemon service install',
      },
    ];
  return [];
}
