// bench/RESULTS.md: the machine, the date, and every figure beside its target with a mark.
import type { Machine } from './machine.js';
import { mark, type ItemResult } from './results.js';

export interface RunInfo {
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly quick: boolean;
  readonly command: string;
  readonly loadAverageAtEnd: readonly number[];
}

export function renderResults(machine: Machine, run: RunInfo, items: readonly ItemResult[]): string {
  const lines: string[] = [];
  lines.push('# ai-zen benchmark results', '');
  lines.push(`Written by \`${run.command}\` (bench/run.ts). Every figure below was measured in this run; none is copied or estimated.`);
  if (run.quick) lines.push('', '**Quick run (`--quick`): sizes and counts are shrunk; these are smoke-test numbers, not the benchmark.**');
  lines.push('', '## Machine', '');
  lines.push('| | |', '|---|---|');
  lines.push(`| date | ${run.startedAt.toISOString()} |`);
  lines.push(`| source | ${escapeCell(machine.revision)} |`);
  lines.push(`| CPU | ${escapeCell(machine.cpuModel)} |`);
  lines.push(`| cores | ${machine.cores} |`);
  lines.push(`| memory | ${(machine.memoryBytes / 1024 ** 3).toFixed(1)} GiB |`);
  lines.push(`| Node.js | ${machine.node} |`);
  lines.push(`| OS | ${escapeCell(machine.os)} |`);
  lines.push(`| git | ${escapeCell(machine.git)} |`);
  lines.push(`| temp folder | ${escapeCell(machine.fileSystemTmp)} |`);
  lines.push(`| load average (1/5/15 min) at start | ${machine.loadAverage.map((load) => load.toFixed(2)).join(' / ')} |`);
  lines.push(`| load average at end | ${run.loadAverageAtEnd.map((load) => load.toFixed(2)).join(' / ')} |`);
  lines.push(`| run took | ${(run.durationMs / 1000).toFixed(1)} s |`);

  lines.push('', '## Summary', '');
  lines.push('| item | result |', '|---|---|');
  for (const item of items) {
    const marks = item.figures.map((figure) => figure.pass).filter((pass): pass is boolean => pass !== null);
    const failed = marks.filter((pass) => !pass).length;
    const verdict = item.notRun
      ? `not run: ${escapeCell(item.notRun)}`
      : failed === 0
        ? `✅ all ${marks.length} targets met`
        : `❌ ${failed} of ${marks.length} targets missed`;
    lines.push(`| ${escapeCell(item.title)} | ${verdict} |`);
  }

  for (const item of items) {
    lines.push('', `## ${item.title}`, '');
    if (item.notRun) {
      lines.push(`**Not run:** ${item.notRun}`);
      continue;
    }
    lines.push('| figure | measured | target | |', '|---|---|---|---|');
    for (const figure of item.figures)
      lines.push(`| ${escapeCell(figure.name)} | ${escapeCell(figure.measured)} | ${escapeCell(figure.target)} | ${mark(figure.pass)} |`);
    if (item.notes.length > 0) {
      lines.push('');
      for (const note of item.notes) lines.push(`- ${note}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
