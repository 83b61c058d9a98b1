// The texts of /help and /status.
import path from 'node:path';
import { contextBar, formatTokens, type ContextUsage } from './context-usage.js';
import type { HandoffRecord } from './last-handoff.js';
import { COMMAND_HELP } from './slash-commands.js';
import type { Style } from './style.js';

export function helpText(style: Style): string {
  const width = Math.max(...COMMAND_HELP.map((entry) => entry.usage.length));
  const commands = COMMAND_HELP.map((entry) => `  ${style.cyan(entry.usage.padEnd(width))}  ${entry.does}`);
  const keys = [
    ['Ctrl-C', 'stop the reply or handoff in progress; the session is kept'],
    ['Ctrl-D', 'leave'],
    ['↑ ↓', 'earlier input'],
  ].map(([key, does]) => `  ${style.cyan(key!.padEnd(width))}  ${does}`);
  return [style.bold('Commands'), ...commands, style.bold('Keys'), ...keys, ''].join('\n');
}

export interface StatusFacts {
  readonly usage: ContextUsage;
  readonly sessionId: string;
  readonly sessionFile: string;
  readonly root: string;
  readonly model: string;
  readonly lastHandoff: HandoffRecord | null;
  readonly style: Style;
}

export function statusText(facts: StatusFacts): string {
  const { usage, style } = facts;
  const approx = usage.estimated ? '~' : '';
  const paint = usage.percent >= 100 ? style.red : usage.percent >= 80 ? style.yellow : style.green;
  const handoff = facts.lastHandoff
    ? `${facts.lastHandoff.path} ${style.dim(`(${facts.lastHandoff.mode}, ${facts.lastHandoff.executor}, ${facts.lastHandoff.at})`)}`
    : style.dim('none yet');
  const rows: [string, string][] = [
    ['Context', `${paint(contextBar(usage.percent))} ${approx}${usage.percent}%  ${approx}${formatTokens(usage.used)} / ${formatTokens(usage.window)} tokens`],
    ['Session', `${facts.sessionId} ${style.dim(`(${path.relative(facts.root, facts.sessionFile)})`)}`],
    ['Model', facts.model],
    ['Handoff', handoff],
  ];
  return `${rows.map(([label, value]) => `  ${style.bold(label.padEnd(8))} ${value}`).join('\n')}\n`;
}
