// Exact-text replacement shared by `edit` and `batch_edit`: the old text must occur exactly once,
// so an edit can never land somewhere the model did not mean.
export type EditOutcome = { ok: true; text: string } | { ok: false; reason: string };

export function replaceOnce(text: string, oldText: string, newText: string): EditOutcome {
  if (oldText === '') return { ok: false, reason: 'old text is empty; give the exact text to replace' };
  const first = text.indexOf(oldText);
  if (first < 0) return { ok: false, reason: 'old text not found; read the file and copy the exact text, whitespace included' };
  let count = 1;
  for (let at = text.indexOf(oldText, first + 1); at >= 0; at = text.indexOf(oldText, at + 1)) count += 1;
  if (count > 1) return { ok: false, reason: `old text occurs ${count} times; include more surrounding text so it is unique` };
  return { ok: true, text: text.slice(0, first) + newText + text.slice(first + oldText.length) };
}
