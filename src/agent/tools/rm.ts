// `rm {path}`: remove a file, a symlink (not what it points at) or a folder with its content.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { locateChangeableEntry } from './confined-path.js';
import { defineTool, fsReason, toolError, toolOk } from './tool-result.js';

const schema = z.object({ path: z.string().min(1).describe('File or folder to remove, relative to the project root') });

export const rmTool = defineTool({
  name: 'rm',
  description: 'Remove a file or a folder (with everything in it) from the project.',
  schema,
  async run(args, { root }) {
    const entry = await locateChangeableEntry(root, args.path);
    if (!entry.ok) return toolError(entry.reason, `rm ${args.path}: ${entry.reason}`);
    try {
      const stats = await fs.lstat(entry.absolute);
      await fs.rm(entry.absolute, { recursive: stats.isDirectory(), force: false });
      const what = stats.isDirectory() ? 'folder' : stats.isSymbolicLink() ? 'symlink' : 'file';
      return toolOk(`removed ${what} ${entry.relative}`, `rm ${entry.relative}`);
    } catch (error) {
      return toolError(`cannot remove ${args.path}: ${fsReason(error)}`);
    }
  },
});
