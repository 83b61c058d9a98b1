// Where each effective setting came from (`ai-zen config`). The loader records it
// while it chooses each value, so what `ai-zen config` shows is what the loader did, not a second
// guess at the merge.

export type ConfigSource =
  | { readonly kind: 'default' }
  | { readonly kind: 'user'; readonly file: string }
  | { readonly kind: 'project'; readonly file: string }
  | { readonly kind: 'env'; readonly variable: string }
  | { readonly kind: 'flag'; readonly flag: string };

/** A setting the project's config tried to make and the loader did not apply. */
export interface IgnoredSetting {
  /** Dotted name, as in the sources: `model`, `baseURL`. */
  readonly key: string;
  readonly file: string;
  readonly reason: string;
}

export const DEFAULT_SOURCE: ConfigSource = { kind: 'default' };

/** A value and where it came from; `undefined` when this source does not set it. */
export type Candidate<T> = readonly [T | undefined, ConfigSource];

/**
 * Chooses the first candidate that is set (the strongest source first), else the fallback, and
 * records under `key` where the value came from.
 */
export function chooseSetting<T>(
  sources: Record<string, ConfigSource>,
  key: string,
  fallback: T,
  ...candidates: readonly Candidate<T>[]
): T {
  for (const [value, source] of candidates) {
    if (value !== undefined) {
      sources[key] = source;
      return value;
    }
  }
  sources[key] = DEFAULT_SOURCE;
  return fallback;
}

/** `the user config file (~/.ai-zen/config.json)`-style words for a person. */
export function describeSource(source: ConfigSource): string {
  switch (source.kind) {
    case 'default':
      return 'built-in default';
    case 'user':
      return `user config ${source.file}`;
    case 'project':
      return `repo config ${source.file}`;
    case 'env':
      return `environment ${source.variable}`;
    case 'flag':
      return `command line ${source.flag}`;
  }
}
