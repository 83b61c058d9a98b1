// `continue --in ai-zen`: the successor is made as a migration makes it — a session
// whose only history is the breakpoint, the document's path (R4) — and `ai-zen --resume` opens it.
// From one of ai-zen's own sessions it IS that migration (ConversationContext.migrate: the crash-safe
// writes, the `migrated` line that links the two in `sessions`); from another agent's session the
// new session starts on its own, and the daemon links it to the session the document was written
// for when it reads the path in its first message.
import type { Env } from '../../paths.js';
import type { ChatMessage } from '../../session/format.js';
import type { NamedSession } from '../shared/other-agent-sessions.js';
import { openProject } from '../shared/open-project.js';

/** Makes the successor session and returns its id. */
export async function makeAiZenSuccessor(
  root: string,
  env: Env,
  session: NamedSession,
  docPath: string,
  notice: (line: string) => void,
): Promise<string> {
  const breakpoint: ChatMessage = { role: 'user', content: docPath };
  const own = session.agent === 'ai-zen';
  const project = await openProject({ cwd: root, env, interactive: false, notice, ...(own ? { resumeId: session.id } : {}) });
  try {
    if (!own) {
      await project.agent.append(breakpoint);
      return project.context.currentId;
    }
    const definitionMessages = project.agent.messages.filter((entry) => entry.definition === true).map((entry) => entry.message);
    const { newId } = await project.context.migrate({ definitionMessages, breakpoint, docPath });
    return newId;
  } finally {
    await project.close();
  }
}
