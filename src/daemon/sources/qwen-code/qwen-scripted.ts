// Who runs a Qwen Code session, a person or a script? Its transcript does not
// say (0.24.4 writes the same lines for `qwen -i` and a one-shot `qwen "…"`), but an interactive
// `qwen` registers its session in `${QWEN_HOME:-~/.qwen}/sessions/<pid>.json` for as long as it runs,
// and a one-shot run registers nothing. So a read that finds new lines — the agent is writing, its
// process is alive — asks the registry: no record naming the session means a script's run, whose
// Stop hook must not turn its last reply into a handoff turn. Qwen registers a terminal session
// without waiting for it (its first turn may be written first, on a loaded machine), so until a
// record is found every read asks again — the Stop hook's own read too; once found, the session is
// a person's for good. The fold stays pure; this wraps its reader.
import type { ReadOptions } from '../../watching/incremental-reader.js';
import type { SessionReader, SessionState, SessionUpdate } from '../../watching/session-source.js';

export function scriptedByRegistry(reader: SessionReader, isRegistered: () => Promise<boolean>): SessionReader {
  let scripted: boolean | undefined;
  const marked = (state: SessionState): SessionState => (scripted === undefined ? state : { ...state, scripted });
  return {
    get file() {
      return reader.file;
    },
    get state() {
      return marked(reader.state);
    },
    get keepsFileOpen() {
      return reader.keepsFileOpen;
    },
    get counters() {
      return reader.counters;
    },
    release: () => reader.release(),
    stampNow: () => reader.stampNow(),
    async update(options?: ReadOptions): Promise<SessionUpdate> {
      const update = await reader.update(options);
      const ask = scripted === true || (scripted === undefined && update.linesRead > 0);
      if (ask && !update.state.otherRepo) scripted = !(await isRegistered().catch(() => true));
      return { ...update, state: marked(update.state) };
    },
  };
}
