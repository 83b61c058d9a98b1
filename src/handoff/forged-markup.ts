// Text from tools, files and cloned repos reaches later sessions through documents and the MCP
// read-back. Markup an agent's harness gives authority (`<system-reminder>`, a tool-result frame)
// and ai-zen's own frames (the handoff instruction's mark, the skill's fences) are made inert in it,
// so a stored line cannot pose as the harness or as ai-zen: the text stays readable, only the marks
// that would be taken for the frame change.
import { HANDOFF_INSTRUCTION_MARK } from './transcript.js';

/** Tags agents' harnesses frame their own messages with (Claude Code's, the tool-call markup models see). */
const HARNESS_TAGS = [
  'system-reminder',
  'system',
  'function_results',
  'function_calls',
  'invoke',
  'parameter',
  'user-prompt-submit-hook',
  'command-name',
  'command-message',
  'command-args',
  'local-command-stdout',
  'local-command-stderr',
  'tool_result',
  'tool_use',
];
const HARNESS_TAG = new RegExp(`<(/?)(${HARNESS_TAGS.join('|')})(?=[\\s/>])`, 'gi');
/** ai-zen's own frames, as the Stop hook's reason and the self executor's prompt write them. */
const AI_ZEN_FRAMES: readonly (readonly [string, string])[] = [
  [HANDOFF_INSTRUCTION_MARK, '[quoted: ai-zen handoff]'],
  ['--- handoff skill ---', '--- quoted: handoff skill ---'],
  ['--- end of handoff skill ---', '--- quoted: end of handoff skill ---'],
];

/** The text with forged frames made inert (`<system-reminder>` → `‹system-reminder>`), and how many were. */
export function neutraliseMarkup(text: string): { readonly text: string; readonly neutralised: number } {
  let neutralised = 0;
  let result = text.replace(HARNESS_TAG, (_match, slash: string, name: string) => {
    neutralised += 1;
    return `‹${slash}${name}`;
  });
  for (const [frame, quoted] of AI_ZEN_FRAMES) {
    const parts = result.split(frame);
    neutralised += parts.length - 1;
    result = parts.join(quoted);
  }
  return { text: result, neutralised };
}
