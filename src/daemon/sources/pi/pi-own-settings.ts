// What pi's own files say about windows and compaction, read once when the daemon makes the source:
// `models.json` (custom providers' models: `contextWindow`, 128k when a model names none, as pi
// does; `modelOverrides` of built-in ones) and the `compaction` block of `settings.json` — the
// global one in pi's folder, the project's `.pi/settings.json` over it, as pi merges them. Small
// files read bounded; a missing or unreadable one is pi's defaults. Never written.
import { readRegularTextSync } from '../../../fs/open-regular-file.js';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { PiFoldOptions } from './pi-fold.js';

/** pi's window for a custom model that names none (models.md, 0.73). */
const PI_CUSTOM_DEFAULT_WINDOW = 128_000;
const MAX_BYTES = 1024 * 1024;

const Window = z.number().int().positive().max(100_000_000);
const ModelsFile = z.looseObject({
  providers: z
    .record(
      z.string(),
      z.looseObject({
        models: z.array(z.looseObject({ id: z.string().max(200), contextWindow: Window.optional() })).optional(),
        modelOverrides: z.record(z.string(), z.looseObject({ contextWindow: Window.optional() })).optional(),
      }),
    )
    .optional(),
});
const SettingsFile = z.looseObject({
  compaction: z
    .looseObject({ enabled: z.boolean().optional(), reserveTokens: z.number().int().nonnegative().max(100_000_000).optional() })
    .optional(),
});

/** What pi's own files say of its windows and its compaction, as its fold takes them. */
export function readPiOwnSettings(agentDir: string, root: string): Pick<PiFoldOptions, 'piModels' | 'reserveTokens' | 'compactionEnabled'> {
  const piModels = new Map<string, number>();
  const models = ModelsFile.safeParse(readJson(path.join(agentDir, 'models.json')));
  for (const [provider, entry] of Object.entries(models.data?.providers ?? {})) {
    for (const [id, override] of Object.entries(entry.modelOverrides ?? {}))
      if (override.contextWindow) piModels.set(`${provider}/${id}`.toLowerCase(), override.contextWindow);
    for (const model of entry.models ?? [])
      piModels.set(`${provider}/${model.id}`.toLowerCase(), model.contextWindow ?? PI_CUSTOM_DEFAULT_WINDOW);
  }
  const global = SettingsFile.safeParse(readJson(path.join(agentDir, 'settings.json'))).data?.compaction;
  const project = SettingsFile.safeParse(readJson(path.join(root, '.pi', 'settings.json'))).data?.compaction;
  const reserveTokens = project?.reserveTokens ?? global?.reserveTokens;
  const compactionEnabled = project?.enabled ?? global?.enabled;
  return {
    piModels,
    ...(reserveTokens !== undefined ? { reserveTokens } : {}),
    ...(compactionEnabled !== undefined ? { compactionEnabled } : {}),
  };
}

function readJson(file: string): unknown {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_BYTES) return undefined;
    // Opened again without waiting: the path may have been swapped for a FIFO since the lstat.
    return JSON.parse(readRegularTextSync(file));
  } catch {
    return undefined;
  }
}
