// Session ids are data, never paths: anything that builds a file name from one checks it here first.
import { randomUUID } from 'node:crypto';
import { AiZenError } from '../errors.js';
import { SESSION_ID_PATTERN } from './format.js';

export function newSessionId(): string {
  return randomUUID();
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value);
}

/** Throws AiZenError('session') for anything that is not a valid session id. */
export function assertSessionId(value: unknown): string {
  if (!isSessionId(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    throw new AiZenError('session', `not a valid session id: ${shown}`);
  }
  return value;
}
