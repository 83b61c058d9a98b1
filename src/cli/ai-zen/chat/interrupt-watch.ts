// Ctrl-C while a reply or a handoff runs. The input line is closed then, so stdin is read here in
// raw mode: keys are not echoed into the streamed reply, and Ctrl-C arrives as a key (not as a
// signal that would reach the tool's child processes too).
import readline from 'node:readline';

/** Calls `onInterrupt` on each Ctrl-C until the returned function is called. */
export function watchInterrupts(source: { readonly input: NodeJS.ReadStream }, onInterrupt: () => void): () => void {
  const { input } = source;
  const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined): void => {
    if (key?.ctrl === true && key.name === 'c') onInterrupt();
  };
  readline.emitKeypressEvents(input);
  const raw = input.isTTY === true;
  if (raw) input.setRawMode(true);
  input.on('keypress', onKey);
  input.resume();
  return () => {
    input.off('keypress', onKey);
    if (raw) input.setRawMode(false);
    input.pause();
  };
}
