// Parses `git status --porcelain=v2 --branch -z` ourselves: one git call gives branch, head oid,
// upstream, ahead/behind and every dirty path (simple-git's status() parses v1 and runs slower).

export interface ParsedStatus {
  /** null before the first commit (`(initial)`). */
  readonly oid: string | null;
  /** null when detached. */
  readonly branch: string | null;
  readonly upstream: string | null;
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly staged: string[];
  readonly unstaged: string[];
  readonly untracked: string[];
  readonly conflicted: string[];
}

/** Fields before the path in each record type (the path itself may contain spaces). */
const FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10, '?': 1, '!': 1 };

export function parsePorcelainV2(output: string): ParsedStatus {
  const status = {
    oid: null as string | null,
    branch: null as string | null,
    upstream: null as string | null,
    ahead: null as number | null,
    behind: null as number | null,
    staged: [] as string[],
    unstaged: [] as string[],
    untracked: [] as string[],
    conflicted: [] as string[],
  };
  const records = output.split('\0');
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? '';
    if (record.length === 0) continue;
    if (record.startsWith('# ')) {
      readHeader(record, status);
      continue;
    }
    const kind = record[0] ?? '';
    const fieldCount = FIELDS_BEFORE_PATH[kind];
    if (fieldCount === undefined) continue;
    const path = afterFields(record, fieldCount);
    if (path === null) continue;
    if (kind === '2') index += 1; // -z puts a rename's original path in the next record
    if (kind === '?') status.untracked.push(path);
    else if (kind === 'u') status.conflicted.push(path);
    else if (kind === '1' || kind === '2') {
      const indexState = record[2];
      const worktreeState = record[3];
      if (indexState !== undefined && indexState !== '.') status.staged.push(path);
      if (worktreeState !== undefined && worktreeState !== '.') status.unstaged.push(path);
    }
  }
  return status;
}

function readHeader(
  record: string,
  status: { oid: string | null; branch: string | null; upstream: string | null; ahead: number | null; behind: number | null },
): void {
  const space = record.indexOf(' ', 2);
  if (space < 0) return;
  const key = record.slice(2, space);
  const value = record.slice(space + 1);
  if (key === 'branch.oid') status.oid = value === '(initial)' ? null : value;
  else if (key === 'branch.head') status.branch = value === '(detached)' ? null : value;
  else if (key === 'branch.upstream') status.upstream = value;
  else if (key === 'branch.ab') {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match) {
      status.ahead = Number(match[1]);
      status.behind = Number(match[2]);
    }
  }
}

function afterFields(record: string, count: number): string | null {
  let position = 0;
  for (let field = 0; field < count; field += 1) {
    position = record.indexOf(' ', position);
    if (position < 0) return null;
    position += 1;
  }
  return record.slice(position);
}
