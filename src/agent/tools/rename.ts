// `rename {from, to}`: move a file or folder inside the project; never over an existing one.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { locateChangeable, locateChangeableEntry } from './confined-path.js';
import { defineTool, fsReason, toolError, toolOk } from './tool-result.js';

const schema = z.object({
  from: z.string().min(1).describe('Existing file or folder, relative to the project root'),
  to: z.string().min(1).describe('New path, relative to the project root; must not exist yet'),
});

export const renameTool = defineTool({
  name: 'rename',
  description: 'Rename or move a file or folder within the project. The destination must not exist.',
  schema,
  async run(args, { root }) {
    const from = await locateChangeableEntry(root, args.from);
    if (!from.ok) return toolError(from.reason, `rename ${args.from}: ${from.reason}`);
    const to = await locateChangeable(root, args.to, 'other');
    if (!to.ok) return toolError(to.reason, `rename → ${args.to}: ${to.reason}`);
    try {
      await fs.lstat(from.absolute);
      if (await exists(to.absolute)) return toolError(`${to.relative} already exists; remove it first or choose another name`);
      await fs.mkdir(path.dirname(to.absolute), { recursive: true });
      await fs.rename(from.absolute, to.absolute);
      return toolOk(`renamed ${from.relative} to ${to.relative}`, `rename ${from.relative} → ${to.relative}`);
    } catch (error) {
      return toolError(`cannot rename ${args.from}: ${fsReason(error)}`);
    }
  },
});

export async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
