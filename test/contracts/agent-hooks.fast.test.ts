// What every agent's hooks promise (agent-hooks.ts), checked for each agent of the list alike, so a
// new agent is covered by being in the list: install twice changes nothing the second time, the
// user's own settings stay through install and uninstall, uninstall takes ours out and only ours,
// the file keeps its mode, and doctor reports a stale hook of ours in that agent's file. Each
// capability an agent has (MCP entry, statusline) installs and uninstalls the same way. An agent
// whose hooks are scripts of ours in its hooks folder (Cline) is held to the same promises there. In-process,
// real files in a temp folder, no child process.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkHooks } from '../../src/cli/daemon/doctor-hooks.js';
import type { AgentHooks, HookEvent, HookScriptFile, HookSettingsJson } from '../../src/daemon/sources/agent-hooks.js';
import { AGENT_MODULES } from '../../src/daemon/sources/index.js';
import { AiZenError } from '../../src/errors.js';
import { hookShimPath } from '../../src/paths.js';

const AGENTS = AGENT_MODULES.flatMap((agent) => (agent.hooks ? [{ word: agent.word, label: agent.label, hooks: agent.hooks }] : []));
/** How an agent keeps its hooks: in a JSON settings file (most), or as a script of ours in its hooks folder (Cline). */
const formatOf = (hooks: AgentHooks) => hooks.settingsFiles({ root: '/repo', env: {} }).find((place) => !place.shared)?.format;
const THEIRS = { userSetting: { kept: true }, theirList: ['a', 'b'] };

describe('every agent of the list has hooks', () => {
  it('each watched agent brings its hooks, so each is installed, answered and checked by doctor', () => {
    expect(AGENTS.map((agent) => agent.word)).toEqual(AGENT_MODULES.map((agent) => agent.word));
  });
});

describe.each(AGENTS.filter(({ hooks }) => formatOf(hooks) === 'json'))("$label's hooks", ({ word, hooks }) => {
  const places = tempPlaces();
  const command = (runner: string) => (event: HookEvent) => `${runner} hook ${word} ${event}`;
  const shim = () => hookShimPath(places.env);
  /** The file install writes (not the shared one doctor also reads). */
  const ownFile = (agentHooks: AgentHooks) =>
    agentHooks.settingsFiles({ root: places.root, env: places.env }).find((place) => !place.shared) as HookSettingsJson;
  const read = async (file: string) => JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;

  it('install twice changes nothing the second time; uninstall takes ours out and leaves the user’s settings and the file’s mode', async () => {
    const { root, env } = places;
    const place = ownFile(hooks);
    await fs.mkdir(path.dirname(place.file), { recursive: true });
    await fs.writeFile(place.file, JSON.stringify(THEIRS, null, 2));
    await fs.chmod(place.file, 0o640);

    const installed = await hooks.install({ root, env, command: command(shim()) });
    expect(installed).toMatchObject({ file: place.file, changed: true });
    const text = await fs.readFile(place.file, 'utf8');
    expect(await read(place.file)).toMatchObject(THEIRS);
    expect((await place.ours(await read(place.file))).commands).toEqual(
      expect.arrayContaining(['Stop', 'PreCompact', 'SessionStart'].map((event) => command(shim())(event as HookEvent))),
    );

    expect(await hooks.install({ root, env, command: command(shim()) })).toMatchObject({ file: place.file, changed: false });
    expect(await fs.readFile(place.file, 'utf8')).toBe(text);
    expect(await mode(place.file)).toBe(0o640);

    expect(await hooks.uninstall({ root, env })).toEqual({ file: place.file, changed: true });
    expect(await read(place.file)).toEqual(THEIRS);
    expect((await place.ours(await read(place.file))).commands).toEqual([]);
    expect(await mode(place.file)).toBe(0o640);
    expect(await hooks.uninstall({ root, env })).toEqual({ file: place.file, changed: false });
  });

  it('doctor reports its hooks stale when they run a checkout that is gone or that is not the shim, and healthy once they run the shim', async () => {
    const { base, root, env } = places;
    const place = ownFile(hooks);
    const gone = path.join(base, 'old checkout', 'dist', 'cli', 'ai-zen-daemon.js');
    await hooks.install({ root, env, command: command(`node '${gone}'`) });
    const findingsFor = async () =>
      (await checkHooks(root, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown}: `));
    // Each of the agent's hooks: three, and Gemini's BeforeAgent.
    const installed = (await place.ours(await read(place.file))).commands.length;
    expect(installed).toBeGreaterThanOrEqual(3);
    const [stale] = await findingsFor();
    expect(stale).toMatchObject({
      check: 'hooks',
      status: 'problem',
      message: `${place.shown}: ${installed} stale ai-zen hooks: runs ${gone}, which no longer exists`,
    });
    expect(stale!.fix).toMatch(new RegExp(`^ai-zen-daemon install-hooks ${word}\\b`));

    const checkout = path.join(base, 'a checkout', 'dist', 'cli', 'ai-zen-daemon.js');
    await fs.mkdir(path.dirname(checkout), { recursive: true });
    await fs.writeFile(checkout, '');
    await hooks.install({ root, env, command: command(checkout.replaceAll(' ', '\\ ')) });
    const [notShim] = await findingsFor();
    expect(notShim).toMatchObject({ status: 'problem' });
    expect(notShim!.message).toContain(`runs ${checkout} (a checkout of ai-zen) instead of the stable ${shim()}`);

    await hooks.install({ root, env, command: command(`'${shim()}'`) });
    expect(await findingsFor()).toEqual([
      {
        check: 'hooks',
        status: 'ok',
        message: `${place.shown}: ${installed === 1 ? "ai-zen's hook runs" : `ai-zen's ${installed} hooks run`} ai-zen-daemon`,
        fix: null,
      },
    ]);
    const outside = (await checkHooks(null, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown}: `));
    expect(outside).toHaveLength(hooks.scope === 'user' ? 1 : 0);
  });

  it('doctor reports its settings path when it is not a regular file, in one finding, without reading it', async () => {
    const { root, env } = places;
    const place = ownFile(hooks);
    await fs.mkdir(place.file, { recursive: true });
    const findings = (await checkHooks(root, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown} `));
    expect(findings).toEqual([
      { check: 'hooks', status: 'problem', message: `${place.shown} is a folder, not a regular file`, fix: `fix ${place.file} by hand` },
    ]);
  });
});

describe.each(AGENTS.filter(({ hooks }) => formatOf(hooks) === 'script'))("$label's hook scripts", ({ word, hooks }) => {
  const places = tempPlaces();
  const command = (runner: string) => (event: HookEvent) => `${runner} hook ${word} ${event}`;
  const shim = () => hookShimPath(places.env);
  const ownScript = () => hooks.settingsFiles({ root: places.root, env: places.env }).find((place) => !place.shared) as HookScriptFile;
  const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;
  const oursIn = async (place: HookScriptFile) => place.ours(await fs.readFile(place.file, 'utf8'));

  it('install twice changes nothing the second time; the person’s other hooks stay, ours keeps the mode they gave it; uninstall takes out ours alone', async () => {
    const { root, env } = places;
    const place = ownScript();
    const theirs = path.join(path.dirname(place.file), 'TaskStart');
    await fs.mkdir(path.dirname(place.file), { recursive: true });
    await fs.writeFile(theirs, '#!/bin/sh\necho theirs\n');
    await fs.chmod(theirs, 0o750);

    expect(await hooks.install({ root, env, command: command(shim()) })).toMatchObject({ file: place.file, changed: true });
    const text = await fs.readFile(place.file, 'utf8');
    expect((await oursIn(place)).commands).toEqual([command(shim())('Stop')]);
    expect(await mode(place.file)).toBe(0o755);
    expect(await hooks.install({ root, env, command: command(shim()) })).toMatchObject({ file: place.file, changed: false });
    expect(await fs.readFile(place.file, 'utf8')).toBe(text);

    await fs.chmod(place.file, 0o700);
    expect(await hooks.install({ root, env, command: command(`'${shim()}'`) })).toMatchObject({ changed: true });
    expect(await mode(place.file)).toBe(0o700);

    expect(await hooks.uninstall({ root, env })).toEqual({ file: place.file, changed: true });
    expect(await fs.stat(place.file).catch(() => null)).toBeNull();
    expect(await fs.readFile(theirs, 'utf8')).toBe('#!/bin/sh\necho theirs\n');
    expect(await mode(theirs)).toBe(0o750);
    expect(await hooks.uninstall({ root, env })).toEqual({ file: place.file, changed: false });
  });

  it('a hook of the person’s own by that name is never overwritten: install refuses in one line, uninstall and doctor leave it alone', async () => {
    const { root, env } = places;
    const place = ownScript();
    await fs.mkdir(path.dirname(place.file), { recursive: true });
    await fs.writeFile(place.file, '#!/bin/sh\necho mine\n', { mode: 0o755 });
    const refused = await hooks.install({ root, env, command: command(shim()) }).catch((error: unknown) => error);
    expect(AiZenError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(new RegExp(`^${place.shown} is a hook of yours: ai-zen does not overwrite it`));
    expect((refused as Error).message).not.toContain('\n');
    expect(await hooks.uninstall({ root, env })).toEqual({ file: place.file, changed: false });
    expect(await fs.readFile(place.file, 'utf8')).toBe('#!/bin/sh\necho mine\n');
    expect((await checkHooks(root, env)).findings.filter((finding) => finding.message.startsWith(place.shown))).toEqual([]);
  });

  it('doctor reports its hook stale when it runs a checkout that is gone or that is not the shim, and healthy once it runs the shim', async () => {
    const { base, root, env } = places;
    const place = ownScript();
    const gone = path.join(base, 'old checkout', 'dist', 'cli', 'ai-zen-daemon.js');
    await hooks.install({ root, env, command: command(`node '${gone}'`) });
    const findingsFor = async () =>
      (await checkHooks(root, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown}: `));
    const installed = (await oursIn(place)).commands.length;
    expect(installed).toBeGreaterThanOrEqual(1);
    const [stale] = await findingsFor();
    expect(stale).toMatchObject({
      check: 'hooks',
      status: 'problem',
      message: `${place.shown}: ${installed} stale ai-zen hook${installed === 1 ? '' : 's'}: runs ${gone}, which no longer exists`,
    });
    expect(stale!.fix).toMatch(new RegExp(`^ai-zen-daemon install-hooks ${word}\\b`));

    const checkout = path.join(base, 'a checkout', 'dist', 'cli', 'ai-zen-daemon.js');
    await fs.mkdir(path.dirname(checkout), { recursive: true });
    await fs.writeFile(checkout, '');
    await hooks.install({ root, env, command: command(checkout.replaceAll(' ', '\\ ')) });
    const [notShim] = await findingsFor();
    expect(notShim).toMatchObject({ status: 'problem' });
    expect(notShim!.message).toContain(`runs ${checkout} (a checkout of ai-zen) instead of the stable ${shim()}`);

    await hooks.install({ root, env, command: command(`'${shim()}'`) });
    expect(await findingsFor()).toEqual([
      {
        check: 'hooks',
        status: 'ok',
        message: `${place.shown}: ${installed === 1 ? "ai-zen's hook runs" : `ai-zen's ${installed} hooks run`} ai-zen-daemon`,
        fix: null,
      },
    ]);
    const outside = (await checkHooks(null, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown}: `));
    expect(outside).toHaveLength(0);
  });

  it('doctor reports its hook path when it is not a regular file, in one finding, without reading it', async () => {
    const { root, env } = places;
    const place = ownScript();
    await fs.mkdir(place.file, { recursive: true });
    const findings = (await checkHooks(root, env)).findings.filter((finding) => finding.message.startsWith(`${place.shown} `));
    expect(findings).toEqual([
      { check: 'hooks', status: 'problem', message: `${place.shown} is a folder, not a regular file`, fix: `fix ${place.file} by hand` },
    ]);
  });
});

/** A temp repo and homes for one test, removed after it. */
function tempPlaces(): { readonly base: string; readonly root: string; readonly env: Record<string, string> } {
  const places = { base: '', root: '', env: {} as Record<string, string> };
  beforeEach(async () => {
    places.base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-hooks-')));
    places.root = path.join(places.base, 'repo');
    await fs.mkdir(places.root);
    places.env = {
      HOME: path.join(places.base, 'user'),
      AI_ZEN_HOME: path.join(places.base, 'ai-zen home'),
      CODEX_HOME: path.join(places.base, 'user', '.codex'),
      CLAUDE_CONFIG_DIR: path.join(places.base, 'user', '.claude'),
      PATH: '',
    };
  });
  afterEach(async () => {
    await fs.rm(places.base, { recursive: true, force: true });
  });
  return places;
}

describe.each(AGENTS.flatMap(({ label, hooks }) => (hooks.mcp ? [{ label, mcp: hooks.mcp }] : [])))("$label's MCP entry", ({ mcp }) => {
  const places = tempPlaces();
  it('install twice changes nothing the second time, uninstall takes it out', async () => {
    const { root, env } = places;
    const shim = hookShimPath(env);
    const first = await mcp.install({ root, env, shim });
    expect(first).toMatchObject({ changed: true, taken: false });
    const text = await fs.readFile(first.file, 'utf8');
    expect(text).toContain(shim);
    expect(await mcp.install({ root, env, shim })).toEqual({ ...first, changed: false });
    expect(await fs.readFile(first.file, 'utf8')).toBe(text);
    expect(await mcp.uninstall({ root, env })).toEqual({ file: first.file, changed: true });
    expect(await fs.readFile(first.file, 'utf8').catch(() => '')).not.toContain(shim);
    expect(await mcp.uninstall({ root, env })).toEqual({ file: first.file, changed: false });
  });
});

describe.each(AGENTS.flatMap(({ label, hooks }) => (hooks.statusLine ? [{ label, statusLine: hooks.statusLine }] : [])))(
  "$label's statusline",
  ({ statusLine }) => {
    const places = tempPlaces();
    it('install twice changes nothing the second time, uninstall takes it out', async () => {
      const { root, env } = places;
      const line = `'${hookShimPath(env)}' statusline`;
      expect(await statusLine.install({ root, env, command: line })).toMatchObject({ state: 'installed' });
      expect(await statusLine.install({ root, env, command: line })).toMatchObject({ state: 'already' });
      expect(await statusLine.uninstall({ root, env })).toMatchObject({ changed: true });
      expect(await statusLine.uninstall({ root, env })).toMatchObject({ changed: false });
    });
  },
);

describe("pi's hooks live in an extension its settings name", () => {
  it('doctor reports an extension named in .pi/settings.json that is gone (pi then runs no hook of ours)', async () => {
    const pi = AGENTS.find((agent) => agent.word === 'pi')!.hooks;
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-hooks-')));
    try {
      const root = path.join(base, 'repo');
      await fs.mkdir(root);
      const env = { AI_ZEN_HOME: path.join(base, 'home'), PATH: '' };
      await pi.install({ root, env, command: (event) => `'${hookShimPath(env)}' hook pi ${event}` });
      const extension = path.join(env.AI_ZEN_HOME, 'pi', 'ai-zen-hooks.ts');
      await fs.rm(extension);
      const findings = (await checkHooks(root, env)).findings;
      expect(findings).toEqual([
        {
          check: 'hooks',
          status: 'problem',
          message: `${path.join('.pi', 'settings.json')}: 1 stale ai-zen hook: names ai-zen's pi extension ${extension}, which no longer exists`,
          fix: `ai-zen-daemon install-hooks pi (in ${root})`,
        },
      ]);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
