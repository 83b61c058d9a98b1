// The agent's tools (SPEC "Agent tools"): paths relative to the project root, every one confined.
import type { Tool } from '../types.js';
import { batchEditTool } from './batch-edit.js';
import { copyTool } from './copy.js';
import { editTool } from './edit.js';
import { createExecTool } from './exec.js';
import { mkdirTool } from './mkdir.js';
import { createPreviousSessionTool, type PreviousSessionOptions } from './previous-session.js';
import { readTool } from './read.js';
import { renameTool } from './rename.js';
import { rmTool } from './rm.js';
import { writeTool } from './write.js';

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
export const DEFAULT_EXEC_OUTPUT_LIMIT = 30_000;

export interface CreateToolsOptions {
  readonly execTimeoutMs?: number;
  readonly execOutputLimit?: number;
  /** Environment for `exec` (default: the process's, without OPENAI_API_KEY). */
  readonly execEnv?: NodeJS.ProcessEnv;
  /** S4: with it, the `previous_session` tool (read-only search of the predecessor chain). */
  readonly previousSession?: PreviousSessionOptions;
}

export function createTools(options: CreateToolsOptions = {}): Tool[] {
  const exec = createExecTool({
    timeoutMs: options.execTimeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
    outputLimit: options.execOutputLimit ?? DEFAULT_EXEC_OUTPUT_LIMIT,
    ...(options.execEnv ? { env: options.execEnv } : {}),
  });
  const tools = [readTool, writeTool, editTool, batchEditTool, rmTool, renameTool, mkdirTool, copyTool, exec] as Tool[];
  if (options.previousSession) tools.push(createPreviousSessionTool(options.previousSession) as Tool);
  return tools;
}
