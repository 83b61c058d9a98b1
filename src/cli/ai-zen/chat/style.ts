// Colours for the chat, or none: off when the output is not a terminal, when NO_COLOR is set
// (https://no-color.org: present and not empty) or TERM is dumb. node:util styleText does the escape codes.
import { styleText } from 'node:util';
import type { Env } from '../../../paths.js';

export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function colorsWanted(output: { isTTY?: boolean }, env: Env): boolean {
  const noColor = env.NO_COLOR;
  return output.isTTY === true && (noColor === undefined || noColor === '') && env.TERM !== 'dumb';
}

type Format = Parameters<typeof styleText>[0];

export function createStyle(enabled: boolean): Style {
  // validateStream: false — we decided above whether colours are wanted; styleText must not decide again.
  const paint = (format: Format) => (text: string) => (enabled ? styleText(format, text, { validateStream: false }) : text);
  return {
    enabled,
    dim: paint('dim'),
    bold: paint('bold'),
    red: paint('red'),
    green: paint('green'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
  };
}
