// ai-zen: hooks for opencode and Kilo Code (written by `ai-zen-daemon install-hooks opencode|kilo`;
// `uninstall-hooks` takes it out of a project). opencode has plugins, not command hooks: its events
// as ai-zen's hooks — session.idle → Stop, experimental.session.compacting → PreCompact,
// session.created → SessionStart. A hook never breaks opencode: no answer, or any error, is nothing.
// A fresh session's pointer to a handoff document rides on its first prompt (chat.message) when that
// prompt comes before the start was answered: the TUI's `/new` creates the session with the prompt.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

const COMMANDS = {}; // install-hooks puts the hook shim's command for each event here
const APP = 'opencode'; // install-hooks puts the client's name here: its database is <data>/<APP>/<APP>.db
const ANSWER_MS = 60_000;

function database() {
  const xdg = process.env.XDG_DATA_HOME;
  const data = xdg && path.isAbsolute(xdg) ? xdg : path.join(process.env.HOME || os.homedir(), '.local', 'share');
  return path.join(data, APP, `${APP}.db`);
}

/** A part id as opencode makes them (`prt_`, 12 hex digits of time, 14 more): one sorted after the prompt's own parts. */
function partId() {
  const time = (BigInt(Date.now()) * 0x1000n + 0xfffn).toString(16).padStart(12, '0').slice(-12);
  return `prt_${time}${randomBytes(7).toString('hex')}`;
}

function ask(event, input) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn(COMMANDS[event], { shell: true, stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), ANSWER_MS);
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', () => resolve(null));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() === '' ? null : JSON.parse(out));
      } catch {
        resolve(null);
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

export const AiZenHooks = async ({ client, directory }) => {
  // `opencode run`: a script's run; the daemon writes the document itself and its last reply stays the script's output.
  const scripted = process.argv.includes('run');
  // The sessions asked to write the document: their next stop is the one after writing it.
  const asked = new Set();
  const input = (event, sessionID, extra) => ({
    hook_event_name: event,
    transcript_path: `${database()}#${sessionID}`,
    session_id: sessionID,
    cwd: directory,
    ...extra,
  });
  const say = (sessionID, text, noReply) =>
    client.session.prompt({ path: { id: sessionID }, body: { ...(noReply ? { noReply: true } : {}), parts: [{ type: 'text', text }] } });
  // Each fresh session's SessionStart, asked once, whichever comes first: its session.created or its first prompt.
  const starts = new Map();
  const startOf = (sessionID) => {
    let start = starts.get(sessionID);
    if (!start) {
      start = ask('SessionStart', input('SessionStart', sessionID, { source: 'startup' })).then((answer) => {
        const context = answer?.hookSpecificOutput?.additionalContext;
        return typeof context === 'string' && context !== '' ? context : null;
      });
      starts.set(sessionID, start);
    }
    return start;
  };
  // Sessions given their pointer, those a prompt came to, and those whose first prompt found them not fresh.
  const told = new Set();
  const prompted = new Set();
  const checked = new Set();
  const fresh = async (sessionID) => {
    const [info, messages] = await Promise.all([client.session.get({ path: { id: sessionID } }), client.session.messages({ path: { id: sessionID } })]);
    return !info.data?.parentID && Array.isArray(messages.data) && messages.data.length === 0;
  };
  return {
    event: async ({ event }) => {
      try {
        if (event.type === 'session.created' && !event.properties?.info?.parentID) {
          const sessionID = event.properties.info.id;
          const context = await startOf(sessionID);
          // A prompt that came meanwhile carries the pointer itself (chat.message), ahead of the model's request.
          if (context !== null && !told.has(sessionID) && !prompted.has(sessionID)) {
            told.add(sessionID);
            await say(sessionID, context, true);
          }
        }
        if (event.type === 'session.idle') {
          const sessionID = event.properties.sessionID;
          const active = asked.delete(sessionID);
          const answer = await ask('Stop', input('Stop', sessionID, scripted ? { stop_hook_active: false, scripted: true } : { stop_hook_active: active }));
          if (!scripted && answer?.decision === 'block' && typeof answer.reason === 'string') {
            asked.add(sessionID);
            // Not awaited: the turn it starts ends in its own session.idle.
            void say(sessionID, answer.reason, false).catch(() => {});
          }
          // The document is done: the TUI shows the line that says so and how to go on (no TUI, `opencode serve`: nothing).
          if (!scripted && typeof answer?.systemMessage === 'string')
            await client.tui.showToast({ body: { message: answer.systemMessage, variant: 'success', duration: 60_000 } }).catch(() => {});
        }
      } catch {
        // A hook never breaks opencode.
      }
    },
    'chat.message': async (hook, output) => {
      try {
        const sessionID = hook.sessionID;
        if (told.has(sessionID)) return;
        prompted.add(sessionID);
        if (!starts.has(sessionID)) {
          // A session this process has not seen start: asked about only when this prompt is its first (not a resumed one's).
          if (checked.has(sessionID)) return;
          checked.add(sessionID);
          if (!(await fresh(sessionID))) return;
        }
        const context = await startOf(sessionID);
        if (context === null || told.has(sessionID)) return;
        told.add(sessionID);
        output.parts.push({ id: partId(), sessionID, messageID: output.message.id, type: 'text', text: context });
      } catch {
        // A hook never breaks opencode.
      }
    },
    'experimental.session.compacting': async (hook) => {
      try {
        await ask('PreCompact', input('PreCompact', hook.sessionID, { trigger: 'auto' }));
      } catch {
        // A hook never breaks opencode.
      }
    },
  };
};
