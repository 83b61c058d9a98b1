import path from 'node:path';

/** A path as the model and the person should see it: relative to the project root. */
export function relativeDisplay(root: string, absolute: string): string {
  return path.relative(root, absolute) || '.';
}
