// `edit {path, old, new}`: replace one exact, unique piece of text in a file.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { AiZenError } from '../../errors.js';
import { writeFileInside } from '../../fs/safe-write.js';
import { locateChangeable } from './confined-path.js';
import { replaceOnce } from './edit-text.js';
import { defineTool, fsReason, toolError, toolOk } from './tool-result.js';

const schema = z.object({
  path: z.string().min(1).describe('File to edit, relative to the project root'),
  old: z.string().describe('Exact text to replace; must occur exactly once'),
  new: z.string().describe('Replacement text'),
});

export const editTool = defineTool({
  name: 'edit',
  description: 'Replace one exact piece of text in a file. The old text must occur exactly once in the file.',
  schema,
  async run(args, { root }) {
    return applyEdits(root, args.path, [{ old: args.old, new: args.new }], 'edit');
  },
});

/** Reads the file, applies every edit in memory, writes once: all or nothing. */
export async function applyEdits(root: string, target: string, edits: readonly { old: string; new: string }[], verb: string) {
  const found = await locateChangeable(root, target, 'replace-file');
  if (!found.ok) return toolError(found.reason, `${verb} ${target}: ${found.reason}`);
  let text: string;
  try {
    text = await fs.readFile(found.absolute, 'utf8');
  } catch (error) {
    return toolError(`cannot read ${target}: ${fsReason(error)}`);
  }
  for (const [index, edit] of edits.entries()) {
    const outcome = replaceOnce(text, edit.old, edit.new);
    if (!outcome.ok) {
      const which = edits.length > 1 ? `edit ${index + 1} of ${edits.length}: ` : '';
      return toolError(
        `${which}${outcome.reason} (${found.relative}); nothing was changed`,
        `${verb} ${found.relative}: ${outcome.reason}`,
      );
    }
    text = outcome.text;
  }
  try {
    await writeFileInside(root, found.relative, text);
  } catch (error) {
    if (AiZenError.isInstance(error)) return toolError(error.message);
    return toolError(`cannot write ${target}: ${fsReason(error)}`);
  }
  const what = edits.length === 1 ? '1 edit' : `${edits.length} edits`;
  return toolOk(`edited ${found.relative} (${what})`, `${verb} ${found.relative} (${what})`);
}
