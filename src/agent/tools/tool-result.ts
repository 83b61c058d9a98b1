// Tool results: what the model reads and one compact line for the person. A refusal or a
// failure is a result the model can act on, never an exception out of the tool loop.
import type { z } from 'zod';
import type { Tool, ToolResult } from '../types.js';

export function toolOk(forModel: string, forUser: string): ToolResult {
  return { forModel, forUser, isError: false };
}

export function toolError(message: string, forUser: string = message): ToolResult {
  return { forModel: `error: ${message}`, forUser, isError: true };
}

/** Keeps a tool's argument type tied to its schema. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}

/** `12 bytes`, `3.4 KB`: sizes for the person's one-line summary. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The message of an fs error, without the absolute paths node puts in it. */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EEXIST: 'already exists',
    EISDIR: 'is a folder',
    ENOTDIR: 'not a folder',
    ENOTEMPTY: 'folder not empty',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EBUSY: 'busy',
  };
  if (code && known[code]) return known[code];
  if (error && typeof error === 'object' && 'message' in error) return String((error as Error).message).split('\n')[0] ?? 'failed';
  return String(error);
}
