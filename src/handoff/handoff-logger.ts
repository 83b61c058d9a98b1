// The little the handoff code needs from a logger. A pino Logger fits it; so does a test's recorder.
export interface HandoffLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentHandoffLogger: HandoffLogger = { debug() {}, info() {}, warn() {}, error() {} };
