// ai-zen: hooks for pi (written by `ai-zen-daemon install-hooks pi`; `uninstall-hooks pi` takes it out of a project).
// pi's events as ai-zen's hooks: agent_end → Stop, session_before_compact → PreCompact,
// session_start → SessionStart. A hook never breaks pi: no answer, or any error, is nothing.
import { spawn } from 'node:child_process';

const COMMANDS = {}; // install-hooks pi puts the hook shim's command for each event here
const ANSWER_MS = 60_000;
const CONTINUE = 'Continue the work from the handoff document named above.';

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

function input(ctx, event, extra) {
  const file = ctx.sessionManager.getSessionFile();
  if (!file) return null;
  return { hook_event_name: event, transcript_path: file, session_id: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, ...extra };
}

export default function aiZenHooks(pi) {
  // Set while the agent answers ai-zen's request: its next stop is the one after writing the document.
  let asked = false;
  // Set once this session was handed off: /ai-zen-continue then starts its successor in one step.
  let handedOff = false;
  pi.registerCommand('ai-zen-continue', {
    description: 'Continue in a fresh session from the handoff document ai-zen just wrote',
    handler: async (_args, ctx) => {
      if (!handedOff) {
        ctx.ui.notify('ai-zen: this session was not handed off; there is nothing to continue from', 'info');
        return;
      }
      await ctx.waitForIdle();
      // The new session's start hook gives it the document (the breakpoint); this message sets it to work.
      await ctx.newSession({
        parentSession: ctx.sessionManager.getSessionFile(),
        withSession: async (fresh) => {
          await fresh.sendUserMessage(CONTINUE);
        },
      });
    },
  });
  pi.on('session_start', async (event, ctx) => {
    const hook = input(ctx, 'SessionStart', { source: event.reason });
    const context = hook && (await ask('SessionStart', hook))?.hookSpecificOutput?.additionalContext;
    if (typeof context === 'string' && context !== '')
      pi.sendMessage({ customType: 'ai-zen', content: context, display: false }, { deliverAs: 'nextTurn' });
  });
  pi.on('agent_end', async (_event, ctx) => {
    const active = asked;
    asked = false;
    // A script (pi -p): the daemon writes the document itself; its last reply stays the script's output.
    const hook = input(ctx, 'Stop', ctx.hasUI ? { stop_hook_active: active } : { stop_hook_active: false, scripted: true });
    const answer = hook && (await ask('Stop', hook));
    // The handoff is done: say so on pi's screen, with how to go on.
    if (ctx.hasUI && typeof answer?.systemMessage === 'string') {
      handedOff = true;
      ctx.ui?.notify?.(answer.systemMessage, 'info');
    }
    if (ctx.hasUI && answer?.decision === 'block' && typeof answer.reason === 'string') {
      asked = true;
      pi.sendUserMessage(answer.reason, { deliverAs: 'followUp' });
    }
  });
  pi.on('session_before_compact', async (_event, ctx) => {
    const hook = input(ctx, 'PreCompact', {});
    if (hook) await ask('PreCompact', hook);
  });
}
