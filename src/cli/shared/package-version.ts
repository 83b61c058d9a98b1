// ai-zen's version, from its package.json: what `--version` prints and what Codex's hook trust and
// the MCP server are told. A module of its own so that printing it loads nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../paths.js';

export function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
