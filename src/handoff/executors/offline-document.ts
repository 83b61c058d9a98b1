// The offline executor's document (X1): built by code from the transcript and the captured facts,
// deterministically (the same input gives the same bytes). Its sections are the skill's headings
// (R7); what this code knows is which of its few kinds of content fits a heading, recognised by the
// heading's marker or words. A heading it cannot fill says so; content whose heading the skill does
// not have goes under the first section, so nothing captured is lost.
import type { AgentMessage } from '../../session/session-recorder.js';
import type { Facts } from '../../probe/facts.js';
import { portablePath, portableText, type PathPlaces } from '../portable-paths.js';
import { continuedDocument, isRevoked, type PreviousDocument } from '../previous-document.js';
import { ruleSentences } from '../rule-sentences.js';
import { ActivityDigest, type CommandRuns } from '../activity-digest.js';
import { lastDelivery, lastUserRequest, userRequests } from '../transcript.js';
import { DEFAULT_LAST_TURNS } from '../visible-turns.js';

type ContentKind = 'breakpoint' | 'goal' | 'state' | 'done' | 'not-done' | 'constraints' | 'file-index' | 'first-steps';

/** How a heading is recognised: its marker, or a word in it (English or Chinese). */
const RECOGNISERS: readonly { kind: ContentKind; marker: string; words: RegExp }[] = [
  { kind: 'breakpoint', marker: '💬', words: /breakpoint|断点/i },
  { kind: 'goal', marker: '🎯', words: /goal|目标/i },
  { kind: 'state', marker: '📊', words: /state|status|状态/i },
  { kind: 'done', marker: '✅', words: /^\W*done|已完成/i },
  { kind: 'not-done', marker: '📋', words: /not done|未完成/i },
  { kind: 'constraints', marker: '⚠️', words: /constraint|preference|rules|约束|约定/i },
  { kind: 'file-index', marker: '📁', words: /file index|files|文件/i },
  { kind: 'first-steps', marker: '🔔', words: /first steps|successor|第一步/i },
];

function kindOf(heading: string): ContentKind | null {
  for (const recogniser of RECOGNISERS) if (heading.includes(recogniser.marker)) return recogniser.kind;
  for (const recogniser of RECOGNISERS) if (recogniser.words.test(heading)) return recogniser.kind;
  return null;
}

export interface OfflineDocumentInput {
  /** The skill's section headings, in order. */
  readonly sections: readonly string[];
  readonly messages: readonly AgentMessage[];
  readonly facts: Facts;
  /** renderFacts(facts): the same fact block every executor gets. */
  readonly factsBlock: string;
  readonly sessionId: string;
  /** Path of the session file (never written into the document: the daemon's state and `status` have it). */
  readonly sessionFile: string;
  /** The project root and the home folder, which the document names as `.`-relative paths and `~`. */
  readonly places?: PathPlaces;
  /** The handoff document this session was started from: named as such, its ⚠️ rules carried forward. */
  readonly previous?: PreviousDocument | null;
  /** S1: the next goal named for this handoff; stated first under 🎯. */
  readonly goal?: string;
  /** F4: whether a first step can be run here as written (its program and paths exist, it destroys nothing). Default: all can. */
  readonly isRunnable?: (command: string) => boolean;
  /** What the messages a long transcript's reader let go of did (kit/evidence.ts): counted with the messages'. */
  readonly earlier?: ActivityDigest;
}

/** Each request quoted is cut to this many characters; the session file has the rest. */
export const MAX_REQUEST_QUOTE = 600;

/** Quote text as a Markdown block quote, cut to a readable length. */
function quote(text: string, limit = 2000): string {
  const trimmed = text.trim();
  const cut =
    trimmed.length > limit ? `${trimmed.slice(0, limit)}\n[… ${trimmed.length - limit} more characters in the session file]` : trimmed;
  return cut
    .split('\n')
    .map((line) => (line.length > 0 ? `> ${line}` : '>'))
    .join('\n');
}

function codeSpan(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return oneLine.includes('`') ? `\`\` ${oneLine} \`\`` : `\`${oneLine}\``;
}

/** The command that reads this session back, bounded: never a raw transcript dump. */
export function readBackCommand(sessionId: string): string {
  return `ai-zen-daemon transcript ${sessionId} --last ${DEFAULT_LAST_TURNS}`;
}

/** A session of thousands of requests quotes its first ones and its latest, the count between (the session file has them). */
export const FIRST_REQUESTS_QUOTED = 10;
export const LATEST_REQUESTS_QUOTED = 90;

function quotedRequests(requests: readonly string[], sessionId: string): string[] {
  const numbered = (request: string, index: number) => ['', `${index + 1}.`, '', quote(request, MAX_REQUEST_QUOTE)];
  if (requests.length <= FIRST_REQUESTS_QUOTED + LATEST_REQUESTS_QUOTED) return requests.flatMap(numbered);
  const latest = requests.length - LATEST_REQUESTS_QUOTED;
  return [
    ...requests.slice(0, FIRST_REQUESTS_QUOTED).flatMap(numbered),
    '',
    `… ${latest - FIRST_REQUESTS_QUOTED} requests between (\`${readBackCommand(sessionId)}\` reads the last turns back).`,
    ...requests.slice(latest).flatMap((request, index) => numbered(request, latest + index)),
  ];
}

/** The user's requests but the one that started this session from a previous document (that is named as such). */
function ownRequests(input: OfflineDocumentInput): string[] {
  return userRequests(input.messages).filter((request) => continuedDocument(request) === null);
}

/** The rules under ⚠️: the user's own in this session, then the previous document's that the user did not take back. */
export function rulesInForce(
  messages: readonly AgentMessage[],
  previous: PreviousDocument | null | undefined,
): { own: string[]; carried: string[] } {
  const requests = userRequests(messages).filter((request) => continuedDocument(request) === null);
  const own = ruleSentences(requests);
  const stated = new Set(own);
  const carried = (previous?.rules ?? []).filter((rule) => !stated.has(rule) && !isRevoked(rule, requests));
  return { own, carried };
}

/** One line per path, with the tools that touched it, in the order first touched. */
function filesList(activity: ActivityDigest, places?: PathPlaces): string {
  const byPath = new Map<string, string[]>();
  for (const [changed, used] of activity.changed) {
    const file = places ? portablePath(changed, places) : changed;
    const tools = byPath.get(file) ?? [];
    for (const tool of used) if (!tools.includes(tool)) tools.push(tool);
    byPath.set(file, tools);
  }
  if (byPath.size === 0) return 'No file was changed by a tool in this session.';
  return [...byPath].map(([file, tools]) => `- ${codeSpan(file)} — ${tools.join(', ')}`).join('\n');
}

/** Files read and never changed, listed under 📁 at most this many (the last ones read: the freshest context). */
export const MAX_FILES_READ = 30;

/** The files the session only read (its next steps read them again), newest last, bounded. */
function readList(activity: ActivityDigest, places?: PathPlaces): string[] {
  const read = activity.readOnly().map((file) => (places ? portablePath(file, places) : file));
  if (read.length === 0) return [];
  const shown = read.slice(-MAX_FILES_READ);
  const more = read.length - shown.length;
  return [
    '',
    `Read, not changed (${read.length}${more > 0 ? `; the last ${shown.length}` : ''}):`,
    '',
    ...shown.map((file) => `- ${codeSpan(file)}`),
  ];
}

/**
 * Each distinct command once, in the order first run, with every exit status it had (so none is lost
 * in a long session); past ActivityDigest's bounds, the first ones and the latest, the runs between counted.
 */
function commandsList(activity: ActivityDigest): string {
  if (activity.firstCommands.size === 0) return 'No command was run in this session.';
  const status = (code: number | null) => `exit ${code ?? 'unknown'}`;
  const line = ([command, { runs, codes, last }]: [string, CommandRuns]) =>
    runs === 1
      ? `- ${codeSpan(command)} — ${status(last)}`
      : `- ${codeSpan(command)} — ${runs} runs: ${codes.map(status).join(', ')}; last ${status(last)}`;
  const between =
    activity.commandsLeftOut > 0
      ? [`- … ${activity.commandsLeftOut} other commands, ${activity.commandRunsLeftOut} runs in all, between these and the latest ones`]
      : [];
  return [...[...activity.firstCommands].map(line), ...between, ...[...activity.latestCommands].map(line)].join('\n');
}

function build(kind: ContentKind, input: OfflineDocumentInput, activity: ActivityDigest): string {
  switch (kind) {
    case 'breakpoint': {
      const last = lastUserRequest(input.messages);
      const started = last === null ? null : continuedDocument(last);
      const request = started === null ? last : `(none since this session was started from the previous handoff document ${started})`;
      const delivery = lastDelivery(input.messages);
      return [
        "The user's last request:",
        '',
        request ? quote(request) : '> (none recorded)',
        '',
        'Last delivered:',
        '',
        delivery ? quote(delivery) : '> (nothing delivered yet)',
      ].join('\n');
    }
    case 'goal': {
      // The user's requests are where goals and constraints live: every one, in order, in their words.
      const requests = ownRequests(input);
      const chain = input.previous
        ? [
            `This session continued the work of the previous handoff document ${codeSpan(input.previous.path)}: read it for what came before.`,
            '',
          ]
        : [];
      const earlier = [
        ...chain,
        ...(requests.length === 0
          ? ["The user's requests: none recorded."]
          : [`The user's requests, in order, in their words (${requests.length}):`, ...quotedRequests(requests, input.sessionId)]),
      ];
      if (input.goal === undefined) return earlier.join('\n');
      return ['The next goal, named for this handoff:', '', quote(input.goal), '', ...earlier].join('\n');
    }
    case 'constraints': {
      const { own, carried } = rulesInForce(input.messages, input.previous);
      const parts =
        own.length === 0
          ? ['None stated by the user in this session (no request said keep, never, must, only, …).']
          : ['Rules the user stated, in their words, in order:', '', ...own.map((rule) => quote(rule))];
      if (carried.length > 0 && input.previous)
        parts.push(
          '',
          `Carried from the previous handoff document ${codeSpan(input.previous.path)}:`,
          '',
          ...carried.map((rule) => quote(rule)),
        );
      return parts.join('\n');
    }
    case 'state':
      return input.factsBlock.trim();
    case 'done':
      return [
        'Files changed by tools:',
        '',
        filesList(activity, input.places),
        '',
        'Commands run, with their exit status:',
        '',
        commandsList(activity),
      ].join('\n');
    case 'not-done':
      if (input.goal !== undefined)
        return `Towards the next goal (see the goal section):\n\n${quote(input.goal)}\n\nWhat else remains is not known: no model was available to judge it.`;
      return 'Not known: no model was available to judge what remains. Start from the last request above.';
    case 'file-index': {
      const lines = [filesList(activity, input.places), ...readList(activity, input.places)];
      if (input.facts.git.known) {
        const git = input.facts.git.value;
        const dirty = [
          ...git.staged.map((file) => `- ${codeSpan(file)} — staged`),
          ...git.unstaged.map((file) => `- ${codeSpan(file)} — unstaged`),
          ...git.untracked.map((file) => `- ${codeSpan(file)} — untracked`),
        ];
        if (dirty.length > 0) lines.push('', 'Uncommitted in git:', '', ...dirty);
      }
      return lines.join('\n');
    }
    case 'first-steps': {
      // Each prints a bounded amount: a successor's context is not for a 250 KB transcript.
      const readBack = readBackCommand(input.sessionId);
      const candidates = input.facts.git.known
        ? ['git status --short | head -n 40', 'git log --oneline -5', readBack]
        : ['ls | head -n 40', readBack];
      // F4 by construction: only commands that pass the same check the document gets.
      const steps = candidates.filter((command) => input.isRunnable?.(command) ?? true).slice(0, 3);
      if (steps.length === 0) return `None: no command could be checked as runnable here. \`${readBack}\` reads the conversation back.`;
      return ['```sh', ...steps, '```'].join('\n');
    }
  }
}

export function buildOfflineDocument(input: OfflineDocumentInput): string {
  const activity = ActivityDigest.of(input.messages, input.earlier);
  const placed = new Set<ContentKind>();
  const bodies = input.sections.map((heading) => {
    const kind = kindOf(heading);
    if (kind === null || placed.has(kind)) return { heading, text: 'Not recorded: written without a model (offline executor).' };
    placed.add(kind);
    return { heading, text: build(kind, input, activity) };
  });
  // Content the skill has no heading for still goes in, under the first section.
  const leftOver = RECOGNISERS.filter(
    (recogniser) => !placed.has(recogniser.kind) && recogniser.kind !== 'not-done' && recogniser.kind !== 'first-steps',
  );
  if (bodies[0] && leftOver.length > 0) {
    bodies[0] = {
      heading: bodies[0].heading,
      text: [bodies[0].text, ...leftOver.map((recogniser) => build(recogniser.kind, input, activity))].join('\n\n'),
    };
  }
  const document = [
    '# Handoff',
    '',
    `Written by ai-zen's offline executor (no model): facts captured by code and what the transcript records. Session \`${input.sessionId}\`; its last turns: \`${readBackCommand(input.sessionId)}\`.`,
    '',
    ...bodies.flatMap(({ heading, text }) => [`## ${heading}`, '', text, '']),
  ].join('\n');
  // What the user wrote may name this machine's paths too.
  return input.places ? portableText(document, input.places) : document;
}
