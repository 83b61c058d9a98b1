// `write {path, content}`: create or replace a file atomically, inside the project root only.
import { z } from 'zod';
import { AiZenError } from '../../errors.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { defineTool, formatSize, fsReason, toolError, toolOk } from './tool-result.js';
import { locateChangeable } from './confined-path.js';
import { relativeDisplay } from './display.js';

const schema = z.object({
  path: z.string().min(1).describe('File to write, relative to the project root; missing folders are created'),
  content: z.string().describe('The whole new content of the file'),
});

export const writeTool = defineTool({
  name: 'write',
  description: 'Create or overwrite a file in the project with the given content. Paths are relative to the project root.',
  schema,
  async run(args, { root }) {
    const found = await locateChangeable(root, args.path, 'replace-file');
    if (!found.ok) return toolError(found.reason, `write ${args.path}: ${found.reason}`);
    try {
      const absolute = await writeFileInside(root, found.relative, args.content);
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const display = relativeDisplay(root, absolute);
      return toolOk(`wrote ${display} (${bytes} bytes)`, `write ${display} (${formatSize(bytes)})`);
    } catch (error) {
      if (AiZenError.isInstance(error)) return toolError(error.message);
      return toolError(`cannot write ${args.path}: ${fsReason(error)}`);
    }
  },
});
