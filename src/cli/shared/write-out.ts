// A lean entry's one answer, written to its descriptor with write(2) rather than through
// process.stdout: that stream (a socket on a pipe) costs every hook and statusline run ~0.5 ms to set
// up, for a line of a few hundred bytes.
import { writeSync } from 'node:fs';

/** Writes `text` to `fd`; what a non-blocking descriptor will not take now (EAGAIN) goes through `stream()`. */
export async function writeOut(fd: number, text: string, stream: () => NodeJS.WritableStream): Promise<void> {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
    return;
  } catch (error) {
    // EPIPE and the like: nobody reads the answer, and the process never fails its caller.
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
  }
  await new Promise<void>((resolve) => stream().write(rest, () => resolve()));
}
