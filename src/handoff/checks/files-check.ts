// F3 Files: every file the session's own tool calls wrote, edited, renamed or removed is named
// somewhere in the document; and every file the document's file index names exists — in the repo,
// or at least in the session (a file it removed, one it spoke of) — so a document cannot send the
// successor to files nobody ever saw. The evidence is plain lists, so a reader of another agent's
// transcript can hand in its own.
import { PATH_WORD } from '../activity-digest.js';
import { documentSections, headingMarker } from './document-sections.js';

/** Forward slashes, no leading `./`. */
function normalisePath(file: string): string {
  return file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** The changed files (project-relative) that the document does not name. */
export function missingFiles(document: string, changedFiles: readonly string[]): string[] {
  const text = document.replace(/\\/g, '/');
  // The document's path words, looked up first: a long session's thousands of files are each found
  // at once, and only a file not among them is searched for in the whole text.
  const words = new Set<string>();
  for (const word of text.match(PATH_WORD) ?? []) words.add(normalisePath(word));
  const missing = new Set<string>();
  for (const file of changedFiles) {
    const wanted = normalisePath(file);
    if (wanted === '' || words.has(wanted) || missing.has(wanted)) continue;
    if (!text.includes(wanted)) missing.add(wanted);
  }
  return [...missing];
}

/** What the file index of a document may be checked against: the files the session named, and the repo. */
export interface KnownFiles {
  readonly named: readonly string[];
  pathExists(path: string): boolean;
}

/** The paths the document's file index names (code spans and list items that look like paths) that exist neither in the repo nor in the session. */
export function unknownFiles(document: string, known: KnownFiles): string[] {
  const index = documentSections(document).find(
    (section) => headingMarker(section.heading) === '📁' || /file index/i.test(section.heading),
  );
  if (!index) return [];
  // Each name and each of its tails after a slash (`src/a.ts` names `a.ts` too): one lookup a path.
  const named = new Set<string>();
  for (const seen of known.named.map(normalisePath)) {
    named.add(seen);
    for (let slash = seen.indexOf('/'); slash !== -1; slash = seen.indexOf('/', slash + 1)) named.add(seen.slice(slash + 1));
  }
  const unknown = new Set<string>();
  for (const candidate of indexedPaths(index.body)) {
    const file = normalisePath(candidate);
    if (unknown.has(file) || named.has(file)) continue;
    if (!known.pathExists(file)) unknown.add(file);
  }
  return [...unknown];
}

/** Code spans and the first word of list items, where they look like a file path (a folder, or a name with an extension). */
function indexedPaths(body: string): string[] {
  const words = [...body.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
  for (const line of body.split('\n')) {
    const item = /^\s*(?:[-*+]|\d+[.)])\s+([^\s`:,;()]+)/.exec(line)?.[1];
    if (item) words.push(item);
  }
  return words.filter(
    (word) => !/\s/.test(word) && !/^[a-z]+:\/\//i.test(word) && /\/|\.[A-Za-z0-9]{1,8}$/.test(word) && !word.startsWith('-'),
  );
}

function listed(files: readonly string[]): string {
  const names = files.map((file) => `\`${file}\``);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

export function checkFiles(document: string, changedFiles: readonly string[], known?: KnownFiles): string[] {
  const problems: string[] = [];
  const missing = missingFiles(document, changedFiles);
  if (missing.length > 0)
    problems.push(
      `${listed(missing)} ${missing.length === 1 ? 'was' : 'were'} changed in this session but the document does not name ${missing.length === 1 ? 'it' : 'them'}`,
    );
  const unknown = known ? unknownFiles(document, known) : [];
  if (unknown.length > 0)
    problems.push(
      `the file index names ${listed(unknown)}, which ${unknown.length === 1 ? 'exists' : 'exist'} neither in the repo nor anywhere in this session`,
    );
  return problems;
}
