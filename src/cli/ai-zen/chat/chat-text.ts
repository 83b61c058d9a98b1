// The texts of /help and /status.
import path from 'node:path';
import { contentText } from '../../../agent/agent.js';
import type { AgentMessage } from '../../../session/session-recorder.js';
import { describeChecks } from '../../../handoff/checks/describe-checks.js';
import { HANDOFF_INSTRUCTION_MARK } from '../../../handoff/transcript.js';
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
  const checked = describeChecks(facts.lastHandoff?.checks);
  const handoff = facts.lastHandoff
    ? `${facts.lastHandoff.path} ${style.dim(`(${facts.lastHandoff.mode}, ${facts.lastHandoff.executor}, ${facts.lastHandoff.at})`)}${checked === null ? '' : ` ${checked.startsWith('checked') ? style.green(checked) : style.yellow(checked)}`}`
    : style.dim('none yet');
  const rows: [string, string][] = [
    [
      'Context',
      `${paint(contextBar(usage.percent))} ${approx}${usage.percent}%  ${approx}${formatTokens(usage.used)} / ${formatTokens(usage.window)} tokens`,
    ],
    ['Session', `${facts.sessionId} ${style.dim(`(${path.relative(facts.root, facts.sessionFile)})`)}`],
    ['Model', facts.model],
    ['Handoff', handoff],
  ];
  return `${rows.map(([label, value]) => `  ${style.bold(label.padEnd(8))} ${value}`).join('\n')}\n`;
}

const RECAP_LINES = 3;

/** Where a reopened session left off: the last request and the start of the last answer. */
export function recap(messages: readonly AgentMessage[], style: Style, columns = 80): string {
  const width = Math.max(20, columns - 5);
  const fit = (line: string): string => (line.length > width ? `${line.slice(0, width - 1)}…` : line);
  // The person's last request, not a handoff instruction the code sent in their name.
  const isRequest = (entry: AgentMessage): boolean =>
    entry.message.role === 'user' && !entry.definition && !contentText(entry.message.content).startsWith(HANDOFF_INSTRUCTION_MARK);
  const at = messages.findLastIndex(isRequest);
  const lastUser = at >= 0 ? messages[at] : undefined;
  const next = messages.findIndex((entry, index) => index > at && entry.message.role === 'user');
  const answers = messages.slice(at + 1, next < 0 ? messages.length : next);
  const lastAnswer = answers.findLast((entry) => entry.message.role === 'assistant' && contentText(entry.message.content).trim() !== '');
  const lines: string[] = [];
  if (lastUser) lines.push(`${style.dim('› ')}${fit(contentText(lastUser.message.content).split('\n')[0] ?? '')}`);
  if (lastAnswer) {
    const answer = contentText(lastAnswer.message.content).trim().split('\n');
    lines.push(...answer.slice(0, RECAP_LINES).map((line) => style.dim(`  ${fit(line)}`)));
    if (answer.length > RECAP_LINES) lines.push(style.dim('  …'));
  }
  return lines.length > 0 ? `${style.dim('Where it left off:')}\n${lines.join('\n')}\n` : '';
}
