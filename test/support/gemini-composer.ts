// Typing at the composer Gemini CLI and Qwen Code share (Qwen is Gemini's fork), as a person does.
// Keys sent faster than it draws are taken for a paste (Enter too), and an Enter that lands while it
// redraws is lost: the text stays in the composer. So a prompt is sent once it shows typed, and Enter
// is pressed again while it still waits there and no request carries it.
import type { TmuxSession } from './tmux.js';
import { waitFor } from './wait-for.js';

export interface GeminiComposer {
  /** Types `text` and sends it; `sent` says whether a request since carried it (one Enter too many would queue it twice). */
  prompt(text: string, sent: () => boolean): Promise<void>;
  /** `/clear`, done once `gone` (what the old conversation showed) left the screen and the empty composer takes keys again. */
  clear(gone: RegExp): Promise<void>;
}

export function geminiComposer(terminal: TmuxSession): GeminiComposer {
  const typed = async (text: string) => {
    await terminal.type(text);
    await terminal.waitForScreen(new RegExp(`\\* ${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    await terminal.sendKeys('Enter');
  };
  return {
    async prompt(text, sent) {
      await typed(text);
      await waitFor(
        async () => {
          if (sent() || !(await terminal.capture()).includes(`* ${text}`)) return true;
          await terminal.sendKeys('Enter');
          return false;
        },
        { timeoutMs: 30_000, message: `the prompt "${text}" sent` },
      );
    },
    async clear(gone) {
      await typed('/clear');
      // An Enter that lands while the completion menu opens only completes `/clear `, and one that lands
      // while it redraws is lost: while `/clear` still waits in the composer, Enter again.
      await waitFor(
        async () => {
          const screen = await terminal.capture();
          if (!gone.test(screen)) return true;
          if (/\* \/clear/.test(screen)) await terminal.sendKeys('Enter');
          return false;
        },
        { timeoutMs: 30_000, message: '/clear to start a fresh session' },
      ).catch(async (error: unknown) => {
        console.log(`the screen when /clear did not take:\n${await terminal.capture()}`);
        throw error;
      });
      // Keys typed while it redraws may be lost: the empty composer says it takes them again.
      await terminal.waitForScreen(/Type your message/);
    },
  };
}
