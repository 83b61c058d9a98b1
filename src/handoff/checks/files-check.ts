// F3 Files: every file the session's own tool calls wrote, edited, renamed or removed is named
// somewhere in the document. The evidence is a plain list, so a reader of another agent's
// transcript can hand in its own.

/** Forward slashes, no leading `./`. */
function normalisePath(file: string): string {
  return file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** The changed files (project-relative) that the document does not name. */
export function missingFiles(document: string, changedFiles: readonly string[]): string[] {
  const text = document.replace(/\\/g, '/');
  const missing: string[] = [];
  for (const file of changedFiles) {
    const wanted = normalisePath(file);
    if (wanted === '' || missing.includes(wanted)) continue;
    if (!text.includes(wanted)) missing.push(wanted);
  }
  return missing;
}

export function checkFiles(document: string, changedFiles: readonly string[]): string[] {
  const missing = missingFiles(document, changedFiles);
  if (missing.length === 0) return [];
  const names = missing.map((file) => `\`${file}\``);
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
  return [
    `${list} ${missing.length === 1 ? 'was' : 'were'} changed in this session but the document does not name ${missing.length === 1 ? 'it' : 'them'}`,
  ];
}
