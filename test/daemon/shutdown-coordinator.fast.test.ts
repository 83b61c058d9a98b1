// D1: every way out of the daemon goes through one coordinator.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createShutdownCoordinator } from '../../src/daemon/process/shutdown-coordinator.js';
import { EXIT_FAILURE, EXIT_FORCED } from '../../src/exit-codes.js';
import { silentLogger } from '../../src/log/logger.js';
import { waitFor } from '../support/wait-for.js';

const quiet = silentLogger();

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('D1 the shutdown coordinator', () => {
  it('D1 stop, SIGTERM and SIGINT share ONE cleanup, then exit 0 once', async () => {
    const exits: number[] = [];
    let cleanups = 0;
    const gate = deferred();
    const coordinator = createShutdownCoordinator({
      deadlineMs: 10_000,
      logger: quiet,
      exit: (code) => exits.push(code),
      cleanup: async () => {
        cleanups += 1;
        await gate.promise;
      },
    });
    const first = coordinator.shutdown('stop request');
    const second = coordinator.shutdown('stop request again');
    expect(coordinator.shuttingDown).toBe(true);
    expect(first).toBe(second);
    gate.resolve();
    await first;
    expect(cleanups).toBe(1);
    expect(exits).toEqual([0]);
  });

  it('D1 a second signal while the cleanup runs forces the exit at once', async () => {
    const exits: number[] = [];
    const gate = deferred();
    const process = new EventEmitter() as unknown as NodeJS.Process;
    const coordinator = createShutdownCoordinator({
      deadlineMs: 10_000,
      logger: quiet,
      exit: (code) => exits.push(code),
      cleanup: () => gate.promise,
    });
    const remove = coordinator.installSignalHandlers(process);
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([EXIT_FORCED]);
    gate.resolve();
    await coordinator.shutdown('late');
    expect(exits).toEqual([EXIT_FORCED]); // never twice
    remove();
    expect((process as unknown as EventEmitter).listenerCount('SIGTERM')).toBe(0);
  });

  it('D1 a cleanup past its deadline exits anyway; a failing cleanup exits non-zero', async () => {
    const exits: number[] = [];
    const never = createShutdownCoordinator({
      deadlineMs: 50,
      logger: quiet,
      exit: (code) => exits.push(code),
      cleanup: () => new Promise(() => {}),
    });
    void never.shutdown('stuck');
    await waitFor(() => exits.length > 0, { message: 'the forced exit' });
    expect(exits).toEqual([EXIT_FORCED]);

    const failing: number[] = [];
    const broken = createShutdownCoordinator({
      deadlineMs: 10_000,
      logger: quiet,
      exit: (code) => failing.push(code),
      cleanup: async () => {
        throw new Error('boom');
      },
    });
    await broken.shutdown('stop');
    expect(failing).toEqual([EXIT_FAILURE]);
  });
});
