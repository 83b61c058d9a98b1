// HandoffGuardPlugin (R12): during the handoff turn only, stopping is enforced by code. It refuses
// every tool that changes files except a `write` to exactly the handoff document. Refusals are soft:
// the reason goes back to the model as the tool result, and the turn goes on.
import path from 'node:path';
import type { Plugin, ToolCallRequest, Verdict } from '../agent/types.js';
import { resolveInsideRoot } from '../fs/confine.js';
import type { DocPath } from './doc-path.js';

/**
 * Boundary (R13): `exec` is NOT blocked — `echo > file` always gets round a guard like this one,
 * and the model may need read-only commands to check the real state. The guard lowers the odds
 * of a mistake while handing off; it is not a sandbox.
 */
const ALWAYS_ALLOWED = new Set(['read', 'exec']);

export interface HandoffGuardOptions {
  /** The project root, real path. */
  readonly root: string;
  readonly doc: DocPath;
}

export class HandoffGuardPlugin implements Plugin {
  readonly name = 'handoff-guard';
  private readonly root: string;
  private readonly doc: DocPath;

  constructor(options: HandoffGuardOptions) {
    this.root = options.root;
    this.doc = options.doc;
  }

  async beforeToolCall(call: ToolCallRequest): Promise<Verdict> {
    if (ALWAYS_ALLOWED.has(call.name)) return undefined;
    if (call.name !== 'write') return { refuse: this.refusal(`\`${call.name}\` is not allowed while handing off`) };

    const target = (call.args as { path?: unknown } | null)?.path;
    if (typeof target !== 'string') return { refuse: this.refusal('`write` needs a path') };
    if (await this.isTheDocument(target)) return undefined;
    return { refuse: this.refusal(`writing ${JSON.stringify(target)} is not allowed while handing off`) };
  }

  /**
   * Both the normalised path (`./`, `..`, absolute) and the real path (every symlink resolved) must
   * be the document's own path: a symlinked folder anywhere on the way is refused, even one that
   * happens to land on the document, which keeps the rule simple to state.
   */
  private async isTheDocument(target: string): Promise<boolean> {
    const expected = path.resolve(this.root, this.doc.relative);
    if (path.resolve(this.root, target) !== expected) return false;
    const resolved = await resolveInsideRoot(this.root, target);
    return resolved.ok && resolved.absolute === expected;
  }

  private refusal(why: string): string {
    return (
      `Refused: ${why}. You are writing the handoff document and must not change anything else. ` +
      `Write the whole document in one call: write with path "${this.doc.relative}". ` +
      'You may read files and run read-only commands to check facts; then reply with one short line.'
    );
  }
}
