// ai-zen: hooks for opencode and Kilo Code (written by `ai-zen-daemon install-hooks opencode|kilo`;
// `uninstall-hooks` takes it out of a project). opencode has plugins, not command hooks: its events
// as ai-zen's hooks — session.idle → Stop, experimental.session.compacting → PreCompact,
// session.created → SessionStart. A hook never breaks opencode: no answer, or any error, is nothing.
import { spawn } from 'node:child_process';
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
  return {
    event: async ({ event }) => {
      try {
        if (event.type === 'session.created' && !event.properties?.info?.parentID) {
          const sessionID = event.properties.info.id;
          const answer = await ask('SessionStart', input('SessionStart', sessionID, { source: 'startup' }));
          const context = answer?.hookSpecificOutput?.additionalContext;
          if (typeof context === 'string' && context !== '') await say(sessionID, context, true);
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
        }
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
