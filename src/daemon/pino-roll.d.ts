// The part of pino-roll 4 that the daemon's log uses (the package ships no types).
declare module 'pino-roll' {
  import type { EventEmitter } from 'node:events';

  interface RollStream extends EventEmitter {
    /** The file being written now (changes on rotation; 'ready' follows). */
    readonly file: string;
    readonly destroyed: boolean;
    write(chunk: string): boolean;
    end(): void;
    flushSync(): void;
  }

  interface RollOptions {
    file: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    extension?: string;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    symlink?: boolean;
    mkdir?: boolean;
    sync?: boolean;
  }

  export default function roll(options: RollOptions): Promise<RollStream>;
}
