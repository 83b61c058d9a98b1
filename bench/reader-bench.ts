// Benchmark (b): what one append costs the daemon's incremental session reader in sessions of
// 1 MB, 100 MB and 500 MB — bytes read and time — against a full re-parse. The appends go round
// the sizes in turn, so drift in the machine's load touches every size alike.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createAiZenSessionSource } from '../dist/daemon/watching/session-source-ai-zen.js';
import type { SessionReader } from '../dist/daemon/watching/session-source.js';
import { projectPaths } from '../dist/paths.js';
import type { Figure, ItemResult } from './results.js';
import { copySession, growSession, assistantLine, usageLine, writeTemplateSession } from './session-fixture.js';
import { formatBytes, formatMs, median, summarise, timed } from './statistics.js';
import { makeBenchProject } from './temp-project.js';

export interface ReaderBenchOptions {
  readonly sizesMb: readonly number[];
  readonly appends: number;
  /** Size of the session fully re-parsed for comparison (one of sizesMb). */
  readonly reparseMb: number;
  readonly reparseRuns: number;
  readonly log: (line: string) => void;
}

const MB = 1024 * 1024;
const TITLE = '(b) Incremental reader: bytes read and time per append';

interface PerSize {
  readonly sizeMb: number;
  readonly file: string;
  readonly bytes: number;
  readonly reader: SessionReader;
  readonly initialReadMs: number;
  readonly times: number[];
  appended: number;
  read: number;
  checkRead: number;
  wrong: string | null;
}

export async function benchReader(options: ReaderBenchOptions): Promise<ItemResult> {
  const project = await makeBenchProject('reader', { git: false });
  const source = createAiZenSessionSource();
  try {
    const maxContextTokens = 128_000;
    const { template } = await writeTemplateSession(project.root, { maxContextTokens, env: project.env });
    const sessions = projectPaths(project.root).sessions;

    const sizes: PerSize[] = [];
    for (const sizeMb of options.sizesMb) {
      options.log(`(b) building a ${sizeMb} MB session`);
      const file = await copySession(sessions, template);
      const bytes = await growSession(file, template, sizeMb * MB);
      const reader = source.createReader(file);
      // The daemon reads a session whole once, at start; from then on only what is appended.
      const initial = await timed(() => reader.update());
      if (initial.value.bytesRead !== bytes) throw new Error(`the first read of ${file} read ${initial.value.bytesRead} of ${bytes} bytes`);
      sizes.push({ sizeMb, file, bytes, reader, initialReadMs: initial.ms, times: [], appended: 0, read: 0, checkRead: 0, wrong: null });
    }

    options.log(`(b) full re-parse of ${options.reparseMb} MB, ${options.reparseRuns} runs`);
    const reparseTarget = sizes.find((size) => size.sizeMb === options.reparseMb) ?? sizes[sizes.length - 1];
    const reparse: number[] = [];
    for (let run = 0; run < options.reparseRuns && reparseTarget; run += 1) {
      collectGarbage();
      const fresh = source.createReader(reparseTarget.file);
      reparse.push((await timed(() => fresh.update())).ms);
    }

    options.log(`(b) ${options.appends} appends to each size`);
    collectGarbage();
    const handles = await Promise.all(sizes.map((size) => fs.open(size.file, 'a')));
    try {
      for (let round = 0; round < options.appends; round += 1) {
        for (const [index, size] of sizes.entries()) {
          // One turn as the agent records it: the reply, then its usage (under the window).
          const promptTokens = 1000 + round;
          const payload = Buffer.from(assistantLine(`reply ${round} to the ${size.sizeMb} MB session`) + usageLine(promptTokens));
          await handles[index]!.write(payload);
          const { value: update, ms } = await timed(() => size.reader.update());
          size.times.push(ms);
          size.appended += payload.length;
          size.read += update.bytesRead;
          size.checkRead += update.checkBytesRead;
          if (update.reset !== null) size.wrong ??= `round ${round}: the reader started over (${update.reset})`;
          if (update.state.latestUsage?.prompt_tokens !== promptTokens)
            size.wrong ??= `round ${round}: the reader did not see the new usage line`;
        }
      }
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }

    const figures: Figure[] = [];
    for (const size of sizes) {
      const equal = size.read === size.appended && size.wrong === null;
      figures.push({
        name: `${size.sizeMb} MB session: appended bytes read / bytes appended`,
        measured: `${size.read} / ${size.appended}${size.wrong ? ` (${size.wrong})` : ''}`,
        target: 'equal',
        pass: equal,
      });
    }
    const checkPerAppend = sizes.map((size) => size.checkRead / options.appends);
    const checkConstant = checkPerAppend.every((value) => value === checkPerAppend[0]);
    figures.push({
      name: 'identity check re-read per append (head + bytes before the offset)',
      measured: sizes.map((size, index) => `${size.sizeMb} MB: ${checkPerAppend[index]} B`).join(', '),
      target: 'same at every size (never the file)',
      pass: checkConstant,
    });
    for (const size of sizes) {
      const summary = summarise(size.times);
      figures.push({
        name: `${size.sizeMb} MB session (${formatBytes(size.bytes)}): time per append, median / p99`,
        measured: `${formatMs(summary.median)} / ${formatMs(summary.p99)}`,
        target: '—',
        pass: null,
      });
    }
    const medians = sizes.map((size) => median(size.times));
    const spread = Math.max(...medians) / Math.min(...medians);
    figures.push({
      name: 'time per append: slowest / fastest median across the sizes',
      measured: `${spread.toFixed(2)}×`,
      target: '≤ 2× (flat)',
      pass: spread <= 2,
    });
    if (reparseTarget) {
      figures.push({
        name: `full re-parse of the ${reparseTarget.sizeMb} MB session (fresh reader, median of ${reparse.length})`,
        measured: formatMs(median(reparse)),
        target: '— (for comparison; ≈ 430 ms in the issue)',
        pass: null,
      });
    }
    return {
      id: 'b',
      title: TITLE,
      notRun: null,
      figures,
      notes: [
        `Sessions built from a real session written by ConversationContext (header, definition message, turns of ${Buffer.byteLength(template.turn)} bytes repeated in 8 MiB chunks) in ${path.dirname(project.root)}; deleted after.`,
        `Reader: createAiZenSessionSource().createReader() — the daemon's own (IncrementalLineReader + zod line parsing + state fold). Each append is one turn (assistant message + usage line, ~${Math.round(sizes[0] ? sizes[0].appended / options.appends : 0)} B) written through an O_APPEND handle; the time is reader.update() alone, ${options.appends} appends per size, taken round-robin across the sizes.`,
        `First (whole-file) read at start: ${sizes.map((size) => `${size.sizeMb} MB ${formatMs(size.initialReadMs)}`).join(', ')}.`,
      ],
    };
  } finally {
    await project.cleanup();
  }
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
