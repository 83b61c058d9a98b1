// Whether a first step would destroy work: the successor runs these as written, before it knows
// the project, so anything that deletes files, discards changes or rewrites a remote is refused.
import type { SimpleCommand } from './shell-command.js';

/** Git options that take a value before the subcommand (`git -C dir reset …`). */
const GIT_OPTIONS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

function gitSubcommand(args: readonly string[]): { name: string | null; rest: readonly string[] } {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (GIT_OPTIONS_WITH_VALUE.has(arg)) {
      index += 1;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return { name: arg, rest: args.slice(index + 1) };
  }
  return { name: null, rest: [] };
}

/** Short flags clustered or not: `-rf`, `-f`, `--force`. */
function hasFlag(args: readonly string[], short: string, long: readonly string[]): boolean {
  return args.some(
    (arg) => long.includes(arg.split('=')[0]!) || (/^-[A-Za-z]+$/.test(arg) && short.split('').some((letter) => arg.includes(letter))),
  );
}

function gitReason(args: readonly string[]): string | null {
  const { name, rest } = gitSubcommand(args);
  switch (name) {
    case 'reset':
      return rest.includes('--hard') || rest.includes('--merge') ? 'discards uncommitted changes' : null;
    case 'clean':
      return rest.includes('-n') || rest.includes('--dry-run') ? null : 'deletes untracked files';
    case 'push':
      return hasFlag(rest, 'f', ['--force', '--force-with-lease', '--force-if-includes', '--mirror', '--delete']) ||
        rest.some((arg) => arg.startsWith('+') || arg.startsWith(':'))
        ? 'rewrites or deletes what is on the remote'
        : null;
    case 'checkout':
      return rest.includes('--') || rest.includes('.') || hasFlag(rest, 'f', ['--force']) ? 'discards uncommitted changes' : null;
    case 'restore':
      return rest.includes('--staged') && !rest.includes('--worktree') && !rest.includes('-W') ? null : 'discards uncommitted changes';
    case 'switch':
      return hasFlag(rest, 'f', ['--force', '--discard-changes']) ? 'discards uncommitted changes' : null;
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? 'deletes stashed changes' : null;
    case 'branch':
      return rest.includes('-D') || (hasFlag(rest, 'd', ['--delete']) && hasFlag(rest, 'f', ['--force']))
        ? 'deletes a branch with unmerged work'
        : null;
    case 'filter-branch':
    case 'filter-repo':
      return 'rewrites history';
    case 'worktree':
      return rest[0] === 'remove' ? 'deletes a worktree' : null;
    case 'update-ref':
      return rest.includes('-d') ? 'deletes a ref' : null;
    default:
      return null;
  }
}

/** Why the command is destructive, or null. `existsInRepo` tells a redirection that overwrites a repo file. */
export function destructiveReason(command: SimpleCommand, existsInRepo: (path: string) => boolean): string | null {
  const program = command.program?.split('/').at(-1) ?? null;
  const args = command.args;
  for (const target of command.writes) if (existsInRepo(target)) return `overwrites ${target}`;
  switch (program) {
    case null:
      return null;
    case 'rm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
      return 'deletes files';
    case 'git':
      return gitReason(args);
    case 'find':
      return args.includes('-delete') || (args.includes('-exec') && args.some((arg) => arg === 'rm')) ? 'deletes files' : null;
    case 'dd':
    case 'truncate':
      return 'overwrites data';
    case 'sudo':
    case 'doas':
      return 'runs as root';
    case 'chmod':
    case 'chown':
      return hasFlag(args, 'R', ['--recursive']) ? 'changes permissions of a whole tree' : null;
    case 'xargs':
      return args.includes('rm') ? 'deletes files' : null;
    default:
      return /^mkfs(\.|$)/.test(program) ? 'formats a disk' : null;
  }
}
