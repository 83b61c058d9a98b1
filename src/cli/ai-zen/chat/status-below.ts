// The status line on the row under the input line, kept there while the person types.
//
// node:readline owns the input rows: every time it redraws them (history ↑/↓, a deletion, an edit
// mid-line, a line that wraps, Ctrl-L, a resize) it clears the screen below the prompt — and with it
// our status row. So after readline has handled each key (our 'keypress' listener is added after
// readline's, so it runs after it) the status is drawn again below the last input row, and the
// cursor is put back where readline left it. Keys that came in one chunk (a paste) are drawn for
// once, in a microtask, after the last of them.
//
// Only relative cursor moves are used, never save/restore: when the prompt sits on the bottom row,
// the newline that opens the status row scrolls the screen, and a saved absolute position would
// then point one row too low.
import type readline from 'node:readline';

const CSI = '\u001b[';
const down = (rows: number): string => (rows > 0 ? `${CSI}${rows}B` : '');
const up = (rows: number): string => (rows > 0 ? `${CSI}${rows}A` : '');
/** To column `col` (0-based) of the current row. */
const column = (col: number): string => `${CSI}${col + 1}G`;
/** Erases from the cursor to the end of its row. */
const ERASE_RIGHT = `${CSI}K`;
/** Erases from the cursor to the end of the screen. */
const ERASE_DOWN = `${CSI}J`;

export interface StatusBelow {
  /** Draws the status under the input (call right after `rl.prompt()`). */
  draw(): void;
  /**
   * The line was submitted: readline has already written its newline, so the cursor is at the
   * start of the status row. Erases it, so the transcript shows the line followed by what comes next.
   */
  submitted(): void;
  /** The line is abandoned (Ctrl-C, Ctrl-D): goes past the input, writes `marker`, ends the row and erases the status. */
  leave(marker: string): void;
  /** Stops redrawing (before `rl.close()`). */
  stop(): void;
}

export function keepStatusBelow(options: {
  rl: readline.Interface;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** The status text; called at each draw so it fits the width of the moment. Must fit in one row. */
  status: () => string;
}): StatusBelow {
  const { rl, input, output } = options;
  let active = true;
  let scheduled = false;

  /** Where the input ends, in readline's own measure (prompt width, wide characters, wrapping). */
  const endOfInput = (): { rows: number; cols: number } => {
    // getCursorPos() measures prompt + line up to rl.cursor; pointing the cursor at the end for the
    // length of one synchronous call gives the end without copying readline's width rules.
    // (`cursor` is typed read-only, but it is a plain field readline itself assigns.)
    const editable = rl as unknown as { cursor: number };
    const cursor = editable.cursor;
    editable.cursor = rl.line.length;
    try {
      return rl.getCursorPos();
    } finally {
      editable.cursor = cursor;
    }
  };

  const draw = (): void => {
    if (!active) return;
    const end = endOfInput();
    const at = rl.getCursorPos();
    const toLastRow = end.rows - at.rows;
    // To the end of the input; wipe what is right of it: keys that come in one chunk (a paste, fast
    // typing) are echoed as they are, without readline's redraw, and wrap straight into our old
    // status row. Then open the row under the input (scrolling at the bottom of the screen), draw,
    // and go back to readline's cursor.
    output.write(
      `${down(toLastRow)}${column(end.cols)}${ERASE_RIGHT}\r\n${ERASE_DOWN}${options.status()}${up(toLastRow + 1)}${column(at.cols)}`,
    );
  };

  /**
   * node:readline remembers on which input row its cursor is (`prevRows`) only when it redraws, so
   * after a chunk echoed as it is (a paste that wraps) its next redraw starts a row or more too low
   * and leaves a copy of the input above (a readline bug, with or without a status line). Setting
   * it from the cursor we just put back keeps its redraws, and so ours, in place.
   */
  const syncReadlineRow = (): void => {
    (rl as unknown as { prevRows: number }).prevRows = rl.getCursorPos().rows;
  };

  const redrawSoon = (): void => {
    if (scheduled || !active) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      if (!active) return;
      syncReadlineRow();
      draw();
    });
  };

  input.on('keypress', redrawSoon);
  output.on('resize', redrawSoon);

  const stop = (): void => {
    active = false;
    input.off('keypress', redrawSoon);
    output.off('resize', redrawSoon);
  };

  return {
    draw,
    submitted() {
      stop();
      output.write(ERASE_DOWN);
    },
    leave(marker) {
      stop();
      const end = endOfInput();
      const at = rl.getCursorPos();
      output.write(`${down(end.rows - at.rows)}${column(end.cols)}${marker}\r\n${ERASE_DOWN}`);
    },
    stop,
  };
}
