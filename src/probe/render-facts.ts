// The fact block every executor (self, summary, offline) and the daemon hand off for 📊:
// compact Markdown, capped lists with counts, "unknown (why)" for a probe that failed.
import type { Facts, GitFacts, PortFact } from './facts.js';

export interface RenderFactsOptions {
  /** Paths listed per group before "… and N more". */
  readonly maxFilesPerGroup?: number;
  readonly maxPorts?: number;
}

export function renderFacts(facts: Facts, options: RenderFactsOptions = {}): string {
  const maxFiles = options.maxFilesPerGroup ?? 20;
  const maxPorts = options.maxPorts ?? 20;
  const lines = [`**Facts** captured by code at ${facts.capturedAt} (git and the OS, not memory):`, ''];
  if (facts.git.known) lines.push(...renderGit(facts.git.value, maxFiles));
  else lines.push(`- Git: unknown (${facts.git.why})`);
  if (facts.ports.known) lines.push(renderPorts(facts.ports.value, maxPorts));
  else lines.push(`- Listening ports: unknown (${facts.ports.why})`);
  return `${lines.join('\n')}\n`;
}

function renderGit(git: GitFacts, maxFiles: number): string[] {
  const lines = [`- Branch: ${renderBranch(git)}`];
  lines.push(git.head ? `- Commit: ${code(git.head.shortSha)} ${oneLine(git.head.subject)}`.trimEnd() : '- Commit: none yet (no commits)');
  if (git.operation) lines.push(`- In progress: ${git.operation}`);
  const groups: [string, readonly string[]][] = [
    ['Conflicted', git.conflicted ?? []],
    ['Staged', git.staged],
    ['Unstaged', git.unstaged],
    ['Untracked', git.untracked],
  ];
  const dirty = groups.filter(([, files]) => files.length > 0);
  if (dirty.length === 0) lines.push('- Working tree: clean');
  for (const [label, files] of dirty) lines.push(`- ${label} (${files.length}): ${capped(files.map(code), maxFiles)}`);
  return lines;
}

function renderBranch(git: GitFacts): string {
  if (git.branch === null) return 'detached HEAD';
  const branch = code(git.branch);
  if (git.upstream === null) return `${branch}, no upstream`;
  const counts =
    git.ahead === null || git.behind === null
      ? 'ahead/behind unknown'
      : `${git.ahead} ahead${git.aheadHandoffCommits ? ` (${git.aheadHandoffCommits} of them ai-zen's handoff commits)` : ''}, ${git.behind} behind`;
  return `${branch}, tracking ${code(git.upstream)} (${counts})`;
}

function renderPorts(ports: readonly PortFact[], maxPorts: number): string {
  // A dual-stack listener appears once per address family: one item per pid and port, with every
  // address it is bound to (127.0.0.1 is this machine only, 0.0.0.0 the whole network).
  const unique = new Map<string, { port: PortFact; addresses: string[] }>();
  for (const port of ports) {
    const entry = unique.get(`${port.pid}:${port.port}`) ?? { port, addresses: [] };
    entry.addresses.push(port.address.includes(':') ? `[${port.address}]:${port.port}` : `${port.address}:${port.port}`);
    unique.set(`${port.pid}:${port.port}`, entry);
  }
  if (unique.size === 0) return '- Listening ports: none from processes in this project';
  const items = [...unique.values()].map(({ port, addresses }) =>
    code(`${port.pid} ${oneLine(port.command)} ${[...new Set(addresses)].join(' ')}`),
  );
  return `- Listening ports (${unique.size}): ${capped(items, maxPorts)}`;
}

function capped(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')}, … and ${items.length - max} more`;
}

/** A code span that survives backticks and newlines in file names (git allows both). */
function code(text: string): string {
  const flat = oneLine(text);
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const padding = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${padding}${flat}${padding}${fence}`;
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}
