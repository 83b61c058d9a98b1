// `ai-zen sessions [--json]` (S6): this repo's sessions as chains — each session, its handoff
// documents, the session it migrated to, when, and by which executor. Reads the session files only;
// it opens no session and takes no lock.
import type { Command } from 'commander';
import { projectPaths } from '../../paths.js';
import { buildLineage, type LineageChain, type LineageSession, type SessionRecord } from '../../session/lineage.js';
import { SessionStore } from '../../session/store.js';
import { findProjectRoot } from '../shared/project-root.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';
import { visibleJson, visibleText } from '../shared/visible-text.js';

/** `2026-12-03 05:47` in the machine's local time (as handoff document names are, R3). */
function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

function sessionLines(session: LineageSession): string[] {
  const latest = session.latest ? '  ← latest (ai-zen --continue)' : '';
  const lines = [
    `  ${session.id}  ${localTime(session.createdAt)}  ${session.model}  ${session.messages} message${session.messages === 1 ? '' : 's'}${latest}`,
  ];
  for (const handoff of session.handoffs) {
    const goal = handoff.goal !== null ? `  goal: ${JSON.stringify(handoff.goal)}` : '';
    lines.push(
      `    ${handoff.mode === 'migrate' ? 'migration doc' : 'handoff doc  '}  ${handoff.path}  (${handoff.executor}, ${localTime(handoff.at)})${goal}`,
    );
  }
  if (session.migratedTo) {
    const by = session.migratedTo.executor ?? 'unknown executor';
    lines.push(`    ↓ migrated ${localTime(session.migratedTo.at)} by ${by} to ${session.migratedTo.id}`);
  }
  return lines;
}

export function renderLineage(chains: readonly LineageChain[]): string {
  if (chains.length === 0) return 'No sessions in this project yet.\n';
  return chains
    .map((chain, index) => {
      const count = chain.sessions.length;
      return [`Chain ${index + 1} · ${count} session${count === 1 ? '' : 's'}`, ...chain.sessions.flatMap(sessionLines)].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

export async function readLineage(cwd: string, env: NodeJS.ProcessEnv): Promise<LineageChain[]> {
  const root = await findProjectRoot(cwd, env);
  const store = new SessionStore(projectPaths(root));
  const records: SessionRecord[] = [];
  for (const id of await store.list()) {
    // A session that cannot be read is left out rather than failing the list.
    const content = await store.read(id).catch(() => null);
    if (content) records.push({ header: content.header, lines: content.lines });
  }
  const pointer = await store.readLatestPointer().catch(() => null);
  return buildLineage(records, pointer?.id ?? null);
}

export function registerSessionsCommand(program: Command, setup: CliSetup): void {
  program
    .command('sessions')
    .description("list this project's sessions as chains: handoff documents, and which session each migrated to, when, by which executor")
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const chains = await readLineage(setup.io.cwd, setup.io.env);
      await writeOut(setup.io.stdout, options.json ? visibleJson({ chains }) : visibleText(renderLineage(chains)));
    });
}
