// A committed handoff document is read on other machines, by other people, so it names
// no path of this one — files inside the project relative to its root, anything else in the home
// folder with `~`. The transcript's own path stays where it belongs: the daemon's state and `status`.

export interface PathPlaces {
  /** Real path of the project root. */
  readonly root: string;
  /** The home folder; null: none to replace. */
  readonly home: string | null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A character that may go on a path: the place ends before anything else (a space, a quote, a backtick, …). */
const PATH_CHARACTER = String.raw`[\p{L}\p{N}_.~+@%-]`;

/** A folder worth replacing: not `/` (every absolute path starts with it). */
function usable(folder: string | null): string | null {
  if (folder === null) return null;
  const trimmed = folder.replace(/\/+$/, '');
  return trimmed.length > 1 ? trimmed : null;
}

/** One path, as the document should name it: `src/a.ts`, `.`, `~/notes.md`, or itself when it is elsewhere. */
export function portablePath(file: string, places: PathPlaces): string {
  const root = usable(places.root);
  const home = usable(places.home);
  if (root !== null) {
    if (file === root) return '.';
    if (file.startsWith(`${root}/`)) return file.slice(root.length + 1);
  }
  if (home !== null) {
    if (file === home) return '~';
    if (file.startsWith(`${home}/`)) return `~/${file.slice(home.length + 1)}`;
  }
  return file;
}

/** Every mention of the project root or the home folder in a text, rewritten as portablePath would. */
export function portableText(text: string, places: PathPlaces): string {
  let result = text;
  // The root first: it is usually inside the home folder.
  const root = usable(places.root);
  const home = usable(places.home);
  if (root !== null) {
    const escaped = escapeRegExp(root);
    result = result
      .replace(new RegExp(`(?<!${PATH_CHARACTER}|/)${escaped}/(?=${PATH_CHARACTER})`, 'gu'), '')
      .replace(new RegExp(`(?<!${PATH_CHARACTER}|/)${escaped}/?(?!${PATH_CHARACTER}|/)`, 'gu'), '.');
  }
  if (home !== null) {
    const escaped = escapeRegExp(home);
    result = result
      .replace(new RegExp(`(?<!${PATH_CHARACTER}|/)${escaped}(?=/)`, 'gu'), '~')
      .replace(new RegExp(`(?<!${PATH_CHARACTER}|/)${escaped}(?!${PATH_CHARACTER}|/)`, 'gu'), '~');
  }
  return result;
}
