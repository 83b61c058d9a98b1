// F2 Facts: what the document says about the branch, the commit, ahead/behind and listening ports
// must not contradict the facts captured for this handoff (X2). Only statements of those facts are
// read ("Branch: `x`", "on branch x", "Commit: `abc1234`", "2 ahead", "port 3000", "listening on
// :3000"); a fact that was not captured cannot be contradicted.
import type { Facts } from '../../probe/facts.js';

const BRANCH_STATEMENTS = [
  /\b(?:current )?branch\s*(?:is|:|：|=)\s*\**\s*`([^`\n]+)`/gi,
  /\b(?:current )?branch\s*(?::|：|=)\s*\**\s*([A-Za-z0-9][\w./-]*)/gi,
  /\bon (?:the )?branch\s+`?([A-Za-z0-9][\w./-]*)`?/gi,
  /(?:分支|ブランチ|Zweig|rama)\s*[:：]?\s*`?([A-Za-z0-9][\w./-]*)`?/gi,
];
const COMMIT_STATEMENTS = [
  /\bcommit\s*(?:is|:|：|=)\s*\**\s*`?([0-9a-f]{7,40})\b/gi,
  /\bHEAD\s*(?:is\s*)?(?:at|:|：|=)?\s*\**\s*`?([0-9a-f]{7,40})\b/g,
  /(?:提交|コミット)\s*[:：]?\s*`?([0-9a-f]{7,40})\b/gi,
];
// "Branch: unknown (why)" or "detached HEAD" states no name.
const NOT_A_NAME = /^(unknown|none|detached|n\/a|not)$/i;
const AHEAD = /(?<!behind\s)\b(\d+)\s+(?:commits?\s+)?ahead\b|\bahead\s+(?:of\s+\S+\s+)?(?:by\s+)?(\d+)\b|领先\s*(\d+)/gi;
const BEHIND = /(?<!ahead\s)\b(\d+)\s+(?:commits?\s+)?behind\b|\bbehind\s+(?:\S+\s+)?(?:by\s+)?(\d+)\b|落后\s*(\d+)/gi;
const PORT_LINE = /\blisten|\bports?\b|端口|ポート/i;
const PORT_NUMBERS = [
  /\bports?\s*[:#]?\s*(\d{2,5})\b/gi,
  /\b(?:and|or)\s+(\d{2,5})\b(?!\s+more)/g,
  /(?:^|[\s`(/])(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]*\])?:(\d{2,5})\b/g,
  /端口\s*(\d{2,5})/g,
];

function matchesOf(text: string, patterns: readonly RegExp[]): string[] {
  const found: string[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const value = match.slice(1).find((group) => group !== undefined);
      if (value !== undefined) found.push(value);
    }
  }
  return found;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/**
 * The document's own statements: quoted lines (someone's words), fenced code and code spans that
 * hold a command (`npm run dev -- --port 3000`) state no fact; a one-word span (`main`) does.
 */
/** The fact block's way of naming a listener: `pid command :port`. */
const LISTENER_SPAN = /^\d+ \S.* (?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]*\])?:\d{2,5}$/;

export function statementsOf(document: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of document.replace(/\r\n/g, '\n').split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      if (fence === null) fence = fenceMatch[1];
      else if (fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null || /^\s{0,3}>/.test(line)) continue;
    kept.push(
      line.replace(/(`+)(.*?)\1/g, (span, _ticks: string, inner: string) =>
        /\s/.test(inner.trim()) && !LISTENER_SPAN.test(inner.trim()) ? '' : span,
      ),
    );
  }
  return kept.join('\n');
}

export function checkFacts(text: string, facts: Facts): string[] {
  const document = statementsOf(text);
  const problems: string[] = [];
  if (facts.git.known) {
    const git = facts.git.value;
    const allowed = new Set(
      [git.branch, git.upstream, git.upstream?.replace(/^[^/]+\//, '')].filter((name): name is string => typeof name === 'string'),
    );
    if (git.branch !== null) {
      for (const claimed of unique(matchesOf(document, BRANCH_STATEMENTS).map((name) => name.replace(/[.,;:)]+$/, '')))) {
        if (!allowed.has(claimed) && !NOT_A_NAME.test(claimed))
          problems.push(`the document says branch \`${claimed}\`; the branch is \`${git.branch}\``);
      }
    }
    if (git.head !== null) {
      const sha = git.head.sha.toLowerCase();
      for (const claimed of unique(matchesOf(document, COMMIT_STATEMENTS).map((value) => value.toLowerCase()))) {
        if (!sha.startsWith(claimed)) problems.push(`the document says commit \`${claimed}\`; the commit is \`${git.head.shortSha}\``);
      }
    }
    if (git.upstream !== null) {
      const counts: [string, RegExp, number | null][] = [
        ['ahead', AHEAD, git.ahead],
        ['behind', BEHIND, git.behind],
      ];
      for (const [word, pattern, actual] of counts) {
        if (actual === null) continue;
        for (const claimed of unique(matchesOf(document, [pattern]).map(Number))) {
          if (claimed !== actual)
            problems.push(`the document says ${claimed} ${word}; the branch is ${actual} ${word} of \`${git.upstream}\``);
        }
      }
    }
  }
  if (facts.ports.known) {
    const listening = new Set(facts.ports.value.map((port) => port.port));
    const said = document
      .split('\n')
      .filter((line) => PORT_LINE.test(line))
      .flatMap((line) => matchesOf(line, PORT_NUMBERS).map(Number));
    for (const port of unique(said)) {
      if (listening.has(port)) continue;
      const actual =
        listening.size === 0 ? 'no process of this project is listening' : `listening: ${[...listening].sort((a, b) => a - b).join(', ')}`;
      problems.push(`the document says port ${port}; it was not listening (${actual})`);
    }
  }
  return problems;
}
