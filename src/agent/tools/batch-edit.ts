// `batch_edit {path, edits: [{old, new}]}`: several exact replacements in one file, applied in
// order, written once — all or nothing.
import { z } from 'zod';
import { applyEdits } from './edit.js';
import { defineTool } from './tool-result.js';

const schema = z.object({
  path: z.string().min(1).describe('File to edit, relative to the project root'),
  edits: z
    .array(
      z.object({
        old: z.string().describe('Exact text to replace; must occur exactly once'),
        new: z.string().describe('Replacement text'),
      }),
    )
    .min(1)
    .describe('Replacements, applied in order'),
});

export const batchEditTool = defineTool({
  name: 'batch_edit',
  description:
    'Apply several exact text replacements to one file, in order. Each old text must occur exactly once at its turn; if any fails, nothing is changed.',
  schema,
  async run(args, { root }) {
    return applyEdits(root, args.path, args.edits, 'batch_edit');
  },
});
