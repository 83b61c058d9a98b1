// F4 First steps: the skill's first-steps section (🔔) holds at most three commands the successor
// can run as written from the project root: each program exists (on PATH, a shell builtin, or a
// script in the repo), each repo path it names exists, and none destroys work.
import { destructiveReason } from './destructive.js';
import { documentSections, findSection, firstStepsHeading } from './document-sections.js';
import { splitCommand } from './shell-command.js';

export const MAX_FIRST_STEPS = 3;

/** What F4 asks of the machine, passed in so the check itself stays a pure function. */
export interface CommandEnvironment {
  /** A program named without a slash: on PATH, or a shell builtin. */
  programExists(name: string): boolean;
  /** A project-relative path (or an absolute one) exists. */
  pathExists(path: string): boolean;
  /** The size in bytes of a file (project-relative or absolute); null when it is no file. Absent: sizes unknown. */
  fileSize?(path: string): number | null;
}

/** What one first step may print, at most. */
export const MAX_FIRST_STEP_OUTPUT = 16 * 1024;

/** Programs that print a file's content. */
const DUMPERS = new Set(['cat', 'tail', 'head', 'less', 'more', 'bat', 'tac', 'nl', 'jq', 'sed', 'awk', 'grep']);

/** A session transcript: one line of one can be tens of kilobytes (Claude Code's), so no dump of it is bounded. */
function isTranscript(file: string): boolean {
  return /\.jsonl$/i.test(file) || /(^|\/)(\.claude\/projects|\.codex\/sessions|\.ai-zen\/sessions)\//.test(file);
}

/** Why a simple command may print more than a successor should read; null when it is bounded. */
function floodReason(program: string, args: readonly string[], piped: boolean, environment: CommandEnvironment): string | null {
  if (!DUMPERS.has(program)) return null;
  const files = args.filter((arg) => !arg.startsWith('-') && (arg.includes('/') || arg.includes('.')));
  const transcript = files.find(isTranscript);
  if (transcript !== undefined)
    return `prints the raw transcript \`${transcript}\`; give \`ai-zen-daemon transcript <session id> --last 20\`, which is bounded`;
  if (program !== 'cat' || piped) return null;
  for (const file of files) {
    const size = environment.fileSize?.(file) ?? null;
    if (size !== null && size > MAX_FIRST_STEP_OUTPUT)
      return `prints all of \`${file}\` (${Math.round(size / 1024)} KB, over ${MAX_FIRST_STEP_OUTPUT / 1024} KB); name the part to read`;
  }
  return null;
}

/** The commands of a first-steps section: the lines of its code blocks, and list items that start with a code span. */
export function commandsIn(body: string): string[] {
  const commands: string[] = [];
  let fence: string | null = null;
  let pending = '';
  for (const line of body.split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      if (fence === null) fence = fenceMatch[1];
      else if (fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) {
      const text = line.trim().replace(/^\$\s+/, '');
      if (text === '' || text.startsWith('#')) continue;
      // A line ending in `\` goes on on the next one.
      if (text.endsWith('\\')) {
        pending += `${text.slice(0, -1)} `;
        continue;
      }
      commands.push(`${pending}${text}`);
      pending = '';
      continue;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])?\s*(`+)(.+?)\1/.exec(line);
    if (item?.[2]) commands.push(item[2].trim().replace(/^\$\s+/, ''));
  }
  if (pending !== '') commands.push(pending.trim());
  return commands;
}

const URL_OR_PATTERN = /:\/\/|[*?$<>{}]|^@/;

/** Arguments that name a repo path: `./x`, or `dir/…` whose first part exists in the repo (so `origin/main` is not one). */
function namedRepoPaths(args: readonly string[], environment: CommandEnvironment): string[] {
  const paths: string[] = [];
  for (const raw of args) {
    if (raw.startsWith('-') || URL_OR_PATTERN.test(raw) || !raw.includes('/')) continue;
    // `src/a.ts:42` points into a file; `HEAD~1:src/a.ts` and `a..b` are revisions.
    const candidate = raw.replace(/:\d+(?::\d+)?$/, '');
    if (candidate.includes(':') || (candidate.includes('..') && !candidate.startsWith('../')) || candidate.startsWith('/')) continue;
    const first = candidate.replace(/^\.\//, '').split('/')[0]!;
    if (candidate.startsWith('./') || candidate.startsWith('../') || environment.pathExists(first)) paths.push(candidate);
  }
  return paths;
}

/** What is wrong with one command; empty when it can be run as written. */
export function commandProblems(command: string, environment: CommandEnvironment): string[] {
  const problems: string[] = [];
  const shown = `\`${command}\``;
  const simples = splitCommand(command);
  for (const [index, simple] of simples.entries()) {
    const program = simple.program;
    const reason = destructiveReason(simple, (file) => environment.pathExists(file));
    if (reason !== null) problems.push(`${shown} is destructive (${reason}); give a command that only looks`);
    if (program === null) continue;
    const flood = floodReason(program, simple.args, command.includes('|') && index < simples.length - 1, environment);
    if (flood !== null) problems.push(`${shown} ${flood}`);
    if (program.includes('/')) {
      if (!environment.pathExists(program)) problems.push(`${shown}: the script \`${program}\` does not exist in the repo`);
    } else if (!environment.programExists(program)) {
      problems.push(`${shown}: the program \`${program}\` is not on PATH nor a script in the repo`);
    }
    for (const file of namedRepoPaths(simple.args, environment)) {
      if (!environment.pathExists(file)) problems.push(`${shown}: the path \`${file}\` does not exist in the repo`);
    }
  }
  return problems;
}

export function checkFirstSteps(document: string, skillSections: readonly string[], environment: CommandEnvironment): string[] {
  const heading = firstStepsHeading(skillSections);
  if (heading === null) return [];
  const section = findSection(documentSections(document), heading);
  // A missing section is F1's to report.
  if (section === null) return [];
  const commands = commandsIn(section.body);
  const problems: string[] = [];
  if (commands.length > MAX_FIRST_STEPS) problems.push(`section "${heading}" has ${commands.length} commands; at most ${MAX_FIRST_STEPS}`);
  for (const command of commands) problems.push(...commandProblems(command, environment));
  return problems;
}
