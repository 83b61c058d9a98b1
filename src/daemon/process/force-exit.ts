// The last way out of the daemon, when its shutdown was cut short (deadline passed, second signal).
// process.exit() cannot end a process while a libuv thread-pool thread is stuck in a system call —
// a FIFO's open(), a hung network mount: on the way out libuv joins its threads, and the join waits
// for ever (measured on Node 20: process.exit and process.reallyExit both hang there).
// SIGKILL to ourselves is the one exit nothing can hold; the session files are whole at every step
// (the kill -9 tests prove it), and the kernel frees the daemon lock with the process.
export function forceExit(target: Pick<NodeJS.Process, 'kill' | 'pid'> = process): void {
  target.kill(target.pid, 'SIGKILL');
}
