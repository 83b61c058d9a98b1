// How deep a JSON text nests, found without recursion. A session line nested 100,000 levels deep
// parses (JSON.parse does not recurse) but everything after it does: JSON.stringify for the token
// estimate and for the request body threw "Maximum call stack size exceeded".
// No real message nests anywhere near MAX_JSON_DEPTH.
export const MAX_JSON_DEPTH = 512;

/** True when `text` opens more than `max` arrays/objects at once (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // Each level costs at least one character: a shorter text cannot be that deep.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}
