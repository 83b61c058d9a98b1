// `read {path}`: a file's text (or a folder's listing), confined to the project root.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { locateTarget } from './confined-path.js';
import { defineTool, formatSize, fsReason, toolError, toolOk } from './tool-result.js';

export const READ_LIMIT_CHARS = 100_000;

const schema = z.object({
  path: z.string().describe('File or folder, relative to the project root'),
  offset: z.number().int().positive().optional().describe('First line to return (1-based)'),
  limit: z.number().int().positive().optional().describe('How many lines to return'),
});

export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file (or list a folder) in the project. Paths are relative to the project root. Use offset/limit for large files.',
  schema,
  async run(args, { root }) {
    const found = await locateTarget(root, args.path);
    if (!found.ok) return toolError(found.reason, `read ${args.path}: ${found.reason}`);
    const display = found.relative || '.';
    try {
      const stats = await fs.stat(found.absolute);
      if (stats.isDirectory()) {
        const entries = await fs.readdir(found.absolute, { withFileTypes: true });
        const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
        return toolOk(names.length > 0 ? names.join('\n') : '(empty folder)', `read ${display}/ (${names.length} entries)`);
      }
      const buffer = await fs.readFile(found.absolute);
      if (buffer.subarray(0, 8192).includes(0))
        return toolOk(
          `${display} is a binary file (${formatSize(buffer.length)}); not shown`,
          `read ${display} (binary, ${formatSize(buffer.length)})`,
        );
      const lines = buffer.toString('utf8').split('\n');
      const first = (args.offset ?? 1) - 1;
      const selected = lines.slice(first, args.limit === undefined ? undefined : first + args.limit);
      let text = selected.join('\n');
      const notes: string[] = [];
      if (args.offset !== undefined || args.limit !== undefined)
        notes.push(`[lines ${first + 1}-${first + selected.length} of ${lines.length}]`);
      if (text.length > READ_LIMIT_CHARS) {
        const shown = text.slice(0, READ_LIMIT_CHARS);
        const shownLines = shown.split('\n').length;
        text = shown;
        notes.push(
          `[truncated: showed ${READ_LIMIT_CHARS} of ${selected.join('\n').length} characters (about ${shownLines} lines); read on with offset ${first + shownLines}]`,
        );
      }
      return toolOk([text, ...notes].join('\n'), `read ${display} (${formatSize(buffer.length)})`);
    } catch (error) {
      return toolError(`cannot read ${args.path}: ${fsReason(error)}`);
    }
  },
});
