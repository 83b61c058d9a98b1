// What `ai-zen-daemon service install` writes, as text: a systemd user unit (Linux)
// or a launchd agent (macOS) that, at login, runs `ai-zen-daemon start --enabled` through the
// stable shim ($AI_ZEN_HOME/bin/ai-zen-daemon), so an upgraded or moved ai-zen needs no new unit.
// Pure: the same inputs give the same bytes, which is how `install` twice stays one file and how
// `doctor` tells a unit that is out of date.
import { AiZenError } from '../../errors.js';

export type ServicePlatform = 'linux' | 'darwin';
export const SYSTEMD_UNIT_NAME = 'ai-zen.service';
export const LAUNCHD_LABEL = 'dev.ai-zen.daemons';
/** The first line of every file ai-zen writes here: uninstall removes only a file that carries it. */
export const SERVICE_MARK = 'Written by ai-zen-daemon service install';

export interface ServiceInputs {
  /** The stable shim the service runs. */
  readonly shim: string;
  /** $AI_ZEN_HOME as the installing shell sees it: the service must find the same enabled.json and run folder. */
  readonly home: string;
}

function refuseNewline(value: string): void {
  // Neither a unit line nor a plist string can carry one safely, and no sane path has one.
  if (/[\n\r\0]/.test(value))
    throw new AiZenError('usage', `a path with a line break cannot go into a service file: ${JSON.stringify(value)}`);
}

/**
 * One word of a unit's command line, double-quoted per systemd.service(5): backslash and quote
 * escaped, `%` doubled (specifiers) and, where `$` would expand a variable (Exec lines), `$$`.
 */
export function systemdQuote(word: string, { exec }: { exec: boolean }): string {
  refuseNewline(word);
  let quoted = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (exec) quoted = quoted.replace(/\$/g, '$$$$');
  return `"${quoted}"`;
}

/**
 * Refuses a path systemd cannot run: a quote or a backslash in the executable's name is a fatal error of the
 * unit, and `$$` (the escape of `$`) stays in it as written, so the unit names a file that is not there.
 */
export function refuseSystemdUnsafe(what: string, value: string): void {
  const bad = /[$"'\\]/.exec(value)?.[0];
  if (bad !== undefined)
    throw new AiZenError(
      'usage',
      `${what} ${JSON.stringify(value)} has ${bad === '$' ? 'a $' : bad === '\\' ? 'a backslash' : 'a quote'}, which a systemd unit cannot carry in the command it runs: set it to a path without $, quotes or backslashes (nothing was written)`,
    );
}

export function renderSystemdUnit({ shim, home }: ServiceInputs): string {
  const command = systemdQuote(shim, { exec: true });
  return `# ${SERVICE_MARK}; removed by ai-zen-daemon service uninstall.
# At login: the daemon of every repo you enabled (ai-zen-daemon enable); at logout: stopped.
# With enable --global there is nothing to start here: an agent's session start brings each repo's daemon up.
[Unit]
Description=ai-zen daemons of the repos you enabled

[Service]
Type=oneshot
RemainAfterExit=yes
Environment=${systemdQuote(`AI_ZEN_HOME=${home}`, { exec: false })}
# "-": one repo that fails to start must not fail the unit, which would stop the daemons that did start.
ExecStart=-${command} start --enabled
ExecStop=${command} stop --enabled

[Install]
WantedBy=default.target
`;
}

function xml(text: string): string {
  refuseNewline(text);
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderLaunchdPlist({ shim, home }: ServiceInputs, logFile: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ${SERVICE_MARK}; removed by ai-zen-daemon service uninstall. At login: the daemon of every repo you enabled. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>${xml(shim)}</string>
    <string>start</string>
    <string>--enabled</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>AI_ZEN_HOME</key>
    <string>${xml(home)}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>StandardOutPath</key>
  <string>${xml(logFile)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(logFile)}</string>
</dict>
</plist>
`;
}
