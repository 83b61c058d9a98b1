// The stable hook command: `$AI_ZEN_HOME/bin/ai-zen-daemon`, a shell script that
// runs this ai-zen. The agents' settings name the script, never the checkout or the global
// install, so moving, re-cloning or upgrading ai-zen breaks no repo's hooks: whichever ai-zen runs
// next (install-hooks, enable) points the script at itself. When the ai-zen it names
// is gone, an `ai-zen-daemon` on the PATH takes over (from an absolute entry outside the folder the
// hook runs in: never a cloned repo's own); when there is none, the hook still exits 0
// (it never fails the agent) but a session's start is told that the repo is unprotected.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileInside } from '../../fs/safe-write.js';
import { aiZenHome, hookShimPath, type Env } from '../../paths.js';
import { commandScript } from '../shared/command-scripts.js';
import { EXTRA_CA_CERTS_ASIDE } from '../shared/extra-ca-certs.js';
import { readInstalledHooks, recordShim, sha256 } from './installed-hooks-record.js';

/** This ai-zen's `ai-zen-daemon` script. */
export const DAEMON_SCRIPT = commandScript('ai-zen-daemon');

export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function hookShimText(script: string, node: string): string {
  const lost = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: `ai-zen: this repo is NOT protected — ai-zen's hooks cannot find ai-zen (it was at ${script}). Reinstall ai-zen, then run ai-zen-daemon enable (or install-hooks <agent>) once to point the hooks at it`,
    },
  });
  return `#!/bin/sh
# ai-zen's hook command, written by ai-zen-daemon: agents' settings name this file, never a checkout
# of ai-zen, so a moved or upgraded ai-zen rewrites this file and every repo's hooks follow.
script=${shellWord(script)}
node=${shellWord(node)}
if [ -f "$script" ]; then
  # Claude Code's statusline runs on every refresh, and the agent waits on every hook: their lean
  # entries, not the whole CLI; their CommonJS file where there is one (it starts faster).
  lean=
  case "$1" in statusline) lean="\${script%/*}/ai-zen-statusline" ;; hook) lean="\${script%/*}/ai-zen-hook" ;; esac
  if [ -n "$lean" ] && [ -f "$lean.cjs" ]; then shift; set -- "$lean.cjs" "$@"
  elif [ -n "$lean" ] && [ -f "$lean.js" ]; then shift; set -- "$lean.js" "$@"
  else set -- "$script" "$@"; lean=; fi
  # A lean entry makes no TLS connection: Node would parse a CA bundle at its start for nothing.
  # Kept aside; the entry puts it back for what it starts (a daemon, a --chain command).
  if [ -n "$lean" ] && [ -n "\${NODE_EXTRA_CA_CERTS:-}" ]; then
    ${EXTRA_CA_CERTS_ASIDE}=$NODE_EXTRA_CA_CERTS; export ${EXTRA_CA_CERTS_ASIDE}; unset NODE_EXTRA_CA_CERTS
  fi
  if [ -x "$node" ]; then exec "$node" "$@"; fi
  exec node "$@"
fi
# An ai-zen-daemon on the PATH, but never from a relative entry or one inside the folder the agent runs
# the hook in: a cloned repo's node_modules/.bin would run as the hook.
here=$(pwd -P 2>/dev/null || pwd)
found=
set -f
was=$IFS
IFS=:
for dir in $PATH; do
  case "$dir" in /*) ;; *) continue ;; esac
  if [ "$here" != / ]; then
    case "$dir/" in "$here"/* | "$PWD"/*) continue ;; esac
  fi
  if [ -f "$dir/ai-zen-daemon" ] && [ -x "$dir/ai-zen-daemon" ] && [ ! "$dir/ai-zen-daemon" -ef "$0" ]; then
    found="$dir/ai-zen-daemon"
    break
  fi
done
IFS=$was
set +f
if [ -n "$found" ]; then exec "$found" "$@"; fi
# No ai-zen anywhere: never fail the agent, but do not leave it unprotected without a word.
cat >/dev/null 2>&1
if [ "$1" = hook ] && [ "$3" = SessionStart ]; then
  printf '%s\\n' ${shellWord(lost)}
fi
if [ "$1" = statusline ]; then echo 'ai-zen: not found (reinstall it)'; fi
exit 0
`;
}

/** Points the shim at this ai-zen (written only when it names another); returns its path. */
export async function ensureHookShim(env: Env): Promise<string> {
  const shim = hookShimPath(env);
  const text = hookShimText(DAEMON_SCRIPT, process.execPath);
  const current = await fs.readFile(shim, 'utf8').catch(() => null);
  const mode = await fs.stat(shim).then(
    (stat) => stat.mode & 0o777,
    () => 0,
  );
  if (current !== text || mode !== 0o755) {
    const home = aiZenHome(env);
    await fs.mkdir(home, { recursive: true, mode: 0o700 });
    await writeFileInside(home, path.relative(home, shim), text, { mode: 0o755 });
  }
  await recordShim(env, text);
  return shim;
}

/** Whether the shim runs this ai-zen; `changed`: its bytes are not what ai-zen last wrote there. */
export async function hookShimState(env: Env): Promise<'current' | 'missing' | 'stale' | 'other' | 'changed'> {
  const current = await fs.readFile(hookShimPath(env), 'utf8').catch(() => null);
  if (current === null) return 'missing';
  if (current === hookShimText(DAEMON_SCRIPT, process.execPath)) return 'current';
  const named = /^script=(.*)$/m.exec(current)?.[1]?.replace(/^'|'$/g, '');
  if (!named || !(await fs.stat(named).catch(() => null))) return 'stale';
  const recorded = (await readInstalledHooks(env))?.shim ?? null;
  return recorded !== null && recorded !== sha256(current) ? 'changed' : 'other';
}
