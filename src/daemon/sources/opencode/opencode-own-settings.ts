// What opencode's own config says of its models' windows: `provider.<p>.models.<m>.limit` ({context,
// output}), from the files opencode merges — the global `${XDG_CONFIG_HOME:-~/.config}/<app>/`
// (opencode.json, opencode.jsonc, config.json), the one OPENCODE_CONFIG names, and the project's
// (`opencode.json(c)` at the repo root and in `.opencode/`), later ones over earlier. Read once when
// the daemon makes the source, bounded; a missing or unreadable file is opencode's defaults.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { openRegularFileSync } from '../../../fs/open-regular-file.js';
import { type Env, xdgFolder } from '../../../paths.js';
import { readJsonc } from '../settings-jsonc.js';
import type { OpencodeApp } from './opencode-paths.js';

const MAX_BYTES = 1024 * 1024;
const Tokens = z.number().int().positive().max(100_000_000);
const ConfigFile = z.looseObject({
  provider: z
    .record(
      z.string().max(200),
      z.looseObject({
        models: z
          .record(
            z.string().max(200),
            z.looseObject({ limit: z.looseObject({ context: Tokens.optional(), output: Tokens.optional() }).optional() }),
          )
          .optional(),
      }),
    )
    .optional(),
});

/** A model's limits as opencode's config states them, by `provider/model`. */
export interface ModelLimit {
  readonly context: number | null;
  readonly output: number | null;
}

export function readOpencodeLimits(env: Env, app: OpencodeApp, root: string): ReadonlyMap<string, ModelLimit> {
  const global = path.join(xdgFolder(env, 'XDG_CONFIG_HOME', '.config'), app);
  const named = app === 'opencode' ? env.OPENCODE_CONFIG : env.KILO_CONFIG;
  const files = [
    path.join(global, 'config.json'),
    path.join(global, `${app}.json`),
    path.join(global, `${app}.jsonc`),
    ...(named && path.isAbsolute(named) ? [named] : []),
    path.join(root, `${app}.json`),
    path.join(root, `${app}.jsonc`),
    path.join(root, `.${app}`, `${app}.json`),
    path.join(root, `.${app}`, `${app}.jsonc`),
  ];
  const limits = new Map<string, ModelLimit>();
  for (const file of files) {
    const config = ConfigFile.safeParse(readConfigFile(file));
    for (const [provider, entry] of Object.entries(config.data?.provider ?? {}))
      for (const [model, facts] of Object.entries(entry.models ?? {}))
        if (facts.limit) limits.set(`${provider}/${model}`, { context: facts.limit.context ?? null, output: facts.limit.output ?? null });
  }
  return limits;
}

function readConfigFile(file: string): unknown {
  let fd: number;
  try {
    fd = openRegularFileSync(file);
  } catch {
    return undefined;
  }
  try {
    // The size of the file opened, not of the path a moment before: one swapped in meanwhile is bounded too.
    if (fs.fstatSync(fd).size > MAX_BYTES) return undefined;
    // As opencode reads it: JSONC, trailing commas allowed; a file it would refuse says nothing.
    const read = readJsonc(fs.readFileSync(fd, 'utf8'), 'jsonc');
    return read.ok ? read.value : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
