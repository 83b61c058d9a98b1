// `handoffs` and `read_handoff` of `ai-zen-daemon mcp`. The list is what
// `ai-zen-daemon handoffs` prints (the daemon's records: commit, agent, successor command), newest
// first; without a daemon, the documents in `.ai-zen/handoffs/` by name. A document is read only
// when it is a regular file directly in that folder, once its symlinks are resolved.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HandoffsReply } from '../../../daemon/side-channels/status-schema.js';
import { readRegularFile } from '../../../fs/read-regular-file.js';
import { neutraliseMarkup } from '../../../handoff/forged-markup.js';
import { isInside, projectPaths, type Env } from '../../../paths.js';
import { isDaemonRunning, requestDaemon } from '../../shared/daemon-client.js';
import { renderHandoffs } from '../render.js';
import { boundedText, MAX_ANSWER_BYTES } from './bounded-text.js';

const DOC_NAME = /^\d{8}-\d{6}-[A-Za-z0-9_-]{8}(?:-[1-9]\d{0,3})?\.md$/;
/** A handoff document is a few KB; anything this large is not one. */
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

export interface DocumentsContext {
  readonly root: string;
  readonly env: Env;
}

export class ToolFailure extends Error {}

export async function listHandoffs(context: DocumentsContext): Promise<string> {
  if (await isDaemonRunning(context.root, context.env)) {
    const { handoffs } = await requestDaemon(context.root, context.env, 'handoffs', undefined, HandoffsReply);
    const newestFirst = [...handoffs].sort((a, b) => b.at.localeCompare(a.at) || b.path.localeCompare(a.path));
    return boundedText(renderHandoffs(newestFirst), 'the newest are first; read one with read_handoff');
  }
  const folder = projectPaths(context.root).handoffs;
  const names = (await fs.readdir(folder).catch(() => [] as string[]))
    .filter((name) => DOC_NAME.test(name))
    .sort()
    .reverse();
  const relative = path.relative(context.root, folder);
  const lines = [
    `no ai-zen daemon runs for this repo (ai-zen-daemon start): the documents in ${relative}/, newest first, without their commits`,
    ...names.map((name) => `${relative}/${name}`),
  ];
  if (names.length === 0) lines.push('no handoff documents');
  return boundedText(`${lines.join('\n')}\n`, 'the newest are first; read one with read_handoff');
}

export async function readHandoff(context: DocumentsContext, given: string, offset: number): Promise<string> {
  const folder = projectPaths(context.root).handoffs;
  const name = path.basename(given);
  const asGiven = path.resolve(context.root, given);
  if (!DOC_NAME.test(name) || (given.includes('/') && path.dirname(asGiven) !== folder))
    throw new ToolFailure(`${given} is not a handoff document of this repo (the handoffs tool lists them: .ai-zen/handoffs/<name>.md)`);
  const realFolder = await fs.realpath(folder).catch(() => null);
  const real = await fs.realpath(path.join(folder, name)).catch(() => null);
  if (realFolder === null || real === null) throw new ToolFailure(`no handoff document ${name} in .ai-zen/handoffs`);
  // A repo whose .ai-zen or handoffs folder is a link elsewhere does not get that elsewhere read.
  if (realFolder !== path.join(await fs.realpath(context.root), '.ai-zen', 'handoffs'))
    throw new ToolFailure('.ai-zen/handoffs leads outside this repo: not read');
  if (!isInside(realFolder, real) || path.dirname(real) !== realFolder)
    throw new ToolFailure(`${name} leads outside .ai-zen/handoffs: not read`);
  const read = await readRegularFile(real, MAX_DOCUMENT_BYTES);
  if (!read.ok) throw new ToolFailure(`${name} ${read.reason}`);
  // A document not sealed by ai-zen (written by hand, or pulled) may carry forged frames: made inert here too.
  const text = neutraliseMarkup(read.bytes.toString('utf8')).text;
  if (offset > text.length) throw new ToolFailure(`${name} has ${text.length} characters; offset ${offset} is past its end`);
  const body = charactersWithin(text.slice(offset, offset + MAX_ANSWER_BYTES), MAX_ANSWER_BYTES - 200);
  const end = offset + body.length;
  const rest = text.length - end;
  return rest > 0 ? `${body}\n[truncated: ${rest} more characters; read on with {"path": "${given}", "offset": ${end}}]` : body;
}

/** The longest start of `text` of at most `maxBytes` in UTF-8, whole characters only (an offset after it never splits one). */
function charactersWithin(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let kept = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  while (kept.endsWith('\uFFFD') || /[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return kept;
}
