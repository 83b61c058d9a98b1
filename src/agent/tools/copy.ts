// `copy {from, to}`: copy a file or a folder inside the project; never over an existing one.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AiZenError } from '../../errors.js';
import { isInside } from '../../paths.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { locateChangeable, locateTarget } from './confined-path.js';
import { exists } from './rename.js';
import { defineTool, fsReason, toolError, toolOk } from './tool-result.js';

const schema = z.object({
  from: z.string().min(1).describe('Existing file or folder, relative to the project root'),
  to: z.string().min(1).describe('Destination path, relative to the project root; must not exist yet'),
});

export const copyTool = defineTool({
  name: 'copy',
  description: 'Copy a file or folder within the project. The destination must not exist.',
  schema,
  async run(args, { root }) {
    const from = await locateTarget(root, args.from);
    if (!from.ok) return toolError(from.reason, `copy ${args.from}: ${from.reason}`);
    const to = await locateChangeable(root, args.to, 'other');
    if (!to.ok) return toolError(to.reason, `copy → ${args.to}: ${to.reason}`);
    try {
      const stats = await fs.stat(from.absolute);
      if (await exists(to.absolute)) return toolError(`${to.relative} already exists; remove it first or choose another name`);
      if (stats.isDirectory()) {
        if (isInside(from.absolute, to.absolute)) return toolError(`cannot copy ${from.relative} into itself`);
        await fs.mkdir(path.dirname(to.absolute), { recursive: true });
        // Symlinks inside are copied as links, never followed: a link out stays a link (and stays refused).
        await fs.cp(from.absolute, to.absolute, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
      } else {
        await writeFileInside(root, to.relative, await fs.readFile(from.absolute), { exclusive: true });
      }
      return toolOk(`copied ${from.relative} to ${to.relative}`, `copy ${from.relative} → ${to.relative}`);
    } catch (error) {
      if (AiZenError.isInstance(error)) return toolError(error.message);
      return toolError(`cannot copy ${args.from}: ${fsReason(error)}`);
    }
  },
});
