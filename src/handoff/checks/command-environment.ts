// The real machine behind F4's questions: PATH (and the shell's builtins) for programs, the
// project folder for paths. Read-only lookups; nothing is run.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandEnvironment } from './first-steps-check.js';

/** POSIX shell builtins and keywords a first step may start with. */
const SHELL_BUILTINS = new Set([
  '.',
  ':',
  '[',
  'alias',
  'cd',
  'command',
  'echo',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'jobs',
  'kill',
  'printf',
  'pwd',
  'read',
  'set',
  'source',
  'test',
  'time',
  'true',
  'type',
  'ulimit',
  'umask',
  'unset',
  'wait',
]);

/**
 * ai-zen's own commands: the checker is ai-zen, so they are there wherever it runs, also when only a
 * project's node_modules/.bin has them (a first step reads the conversation back through one).
 */
const AI_ZEN_PROGRAMS = new Set(['ai-zen', 'ai-zen-daemon']);

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function localCommandEnvironment(root: string, searchPath: string = process.env.PATH ?? ''): CommandEnvironment {
  const directories = searchPath.split(path.delimiter).filter((directory) => directory.length > 0);
  const known = new Map<string, boolean>();
  return {
    programExists(name) {
      if (SHELL_BUILTINS.has(name) || AI_ZEN_PROGRAMS.has(name)) return true;
      let found = known.get(name);
      if (found === undefined) {
        found = directories.some((directory) => isExecutableFile(path.join(directory, name)));
        known.set(name, found);
      }
      return found;
    },
    pathExists(file) {
      return fs.existsSync(path.resolve(root, file));
    },
    fileSize(file) {
      try {
        const stat = fs.statSync(path.resolve(root, file));
        return stat.isFile() ? stat.size : null;
      } catch {
        return null;
      }
    },
  };
}
