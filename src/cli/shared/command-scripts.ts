// Where the command scripts are (dist/cli/: rolldown.config.ts writes every one there). This module
// is bundled into a chunk beside them, or is tsc's dist/cli/shared/ or the source in src/cli/shared/
// (tests running a command in-process): from those two the scripts are the built ones in dist/cli/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const folder = path.basename(here) === 'shared' ? path.resolve(here, '..', '..', '..', 'dist', 'cli') : here;

export type CommandScript = 'ai-zen' | 'ai-zen-daemon' | 'ai-zen-hook' | 'ai-zen-statusline';

/** The path of this ai-zen's script for `name`. */
export function commandScript(name: CommandScript): string {
  return path.join(folder, `${name}.js`);
}
