// `mkdir {path}`: create a folder (and its parents) inside the project.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { locateChangeable } from './confined-path.js';
import { defineTool, fsReason, toolError, toolOk } from './tool-result.js';

const schema = z.object({ path: z.string().min(1).describe('Folder to create, relative to the project root; parents are created too') });

export const mkdirTool = defineTool({
  name: 'mkdir',
  description: 'Create a folder (with any missing parents) in the project.',
  schema,
  async run(args, { root }) {
    const found = await locateChangeable(root, args.path, 'other');
    if (!found.ok) return toolError(found.reason, `mkdir ${args.path}: ${found.reason}`);
    try {
      await fs.mkdir(found.absolute, { recursive: true });
      return toolOk(`created folder ${found.relative || '.'}`, `mkdir ${found.relative}`);
    } catch (error) {
      return toolError(`cannot create ${args.path}: ${fsReason(error)}`);
    }
  },
});
