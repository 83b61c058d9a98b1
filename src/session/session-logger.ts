// The little a session needs from a logger. A pino Logger fits it; so does a test's recorder.
export interface SessionLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentSessionLogger: SessionLogger = { info() {}, warn() {}, error() {} };
