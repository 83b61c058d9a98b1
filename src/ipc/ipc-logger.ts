// What the IPC modules need of a logger; a pino Logger (src/log) satisfies it.
import type { Logger } from 'pino';

export type IpcLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
