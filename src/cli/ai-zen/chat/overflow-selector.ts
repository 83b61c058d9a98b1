// The overflow selector (R19): the context went past the window, so offer a handoff by this agent
// (highlighted, Enter takes it), an independent summary, or Esc to skip and keep everything.
// Built on @inquirer/core because the stock select prompt has no Esc.
import { createPrompt, isDownKey, isEnterKey, isUpKey, useKeypress, useState } from '@inquirer/core';
import type { OverflowInfo } from '../../../handoff/auto-migrate.js';
import type { ExecutorName } from '../../../session/format.js';
import { formatTokens } from './context-usage.js';
import type { Style } from './style.js';
import { usagePercent } from '../../../usage-percent.js';

export type OverflowChoice = ExecutorName | 'skip';

interface Option {
  readonly value: OverflowChoice;
  readonly label: string;
  /** What the answered prompt shows. */
  readonly short: string;
}

interface SelectorConfig {
  readonly message: string;
  readonly options: readonly Option[];
  readonly style: Style;
}

const selectorPrompt = createPrompt<OverflowChoice, SelectorConfig>((config, done) => {
  const { options, style } = config;
  const [active, setActive] = useState(0);
  const [answer, setAnswer] = useState<Option | null>(null);

  const finish = (option: Option): void => {
    setAnswer(option);
    done(option.value);
  };

  useKeypress((key) => {
    if (answer !== null) return;
    // A key that follows Esc within readline's escape timeout arrives as one `meta` key (Esc then
    // Enter is meta-Enter): it is still an Esc, so it must skip, never take the default.
    const escaped = key.name === 'escape' || (key as { meta?: boolean }).meta === true;
    if (escaped) finish(options.find((option) => option.value === 'skip')!);
    else if (isEnterKey(key)) finish(options[active]!);
    else if (isUpKey(key)) setActive((active + options.length - 1) % options.length);
    else if (isDownKey(key)) setActive((active + 1) % options.length);
  });

  if (answer !== null) return `${style.yellow('!')} ${config.message} ${style.cyan(answer.short)}`;
  const lines = options.map((option, index) => (index === active ? style.cyan(`❯ ${option.label}`) : `  ${option.label}`));
  return [`${style.yellow('!')} ${style.bold(config.message)}`, ...lines, style.dim('↑↓ move · ⏎ choose · Esc skip')].join('\n');
});

export function overflowMessage(info: OverflowInfo): string {
  const percent = usagePercent(info.promptTokens, info.maxContextTokens);
  return `Context full: ${formatTokens(info.promptTokens)} of ${formatTokens(info.maxContextTokens)} tokens (${percent}%). Hand off to a fresh session?`;
}

export function overflowOptions(info: OverflowInfo): Option[] {
  const self: Option = {
    value: 'self',
    label: 'Hand off by this agent — it writes the handoff document with its full context',
    short: 'Hand off by this agent',
  };
  const summary: Option = {
    value: 'summary',
    label: 'Independent summary — one cheaper call, lower fidelity',
    short: 'Independent summary',
  };
  const skip: Option = { value: 'skip', label: 'Skip (Esc) — keep the whole history; ask again after the next reply', short: 'Skip' };
  // R19: this agent's own handoff is the highlighted default, unless the project chose otherwise.
  const ordered = info.defaultExecutor === 'summary' ? [summary, self] : [self, summary];
  return [...ordered, skip];
}

export interface SelectorIo {
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

/** Shows the selector; Esc, or Ctrl-C, skips. */
export async function chooseOnOverflow(
  info: OverflowInfo,
  style: Style,
  io: SelectorIo = {},
  message: string = overflowMessage(info),
): Promise<OverflowChoice> {
  try {
    return await selectorPrompt({ message, options: overflowOptions(info), style }, io);
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return 'skip';
    throw error;
  }
}
