// Comments and test names cite the product's requirements by id ("R19", "T4", "F1–F4"). The
// specification they come from is not in the repository, so docs/requirements.md says what each one
// means; an id it does not list leaves a reader with a label and no meaning. Reads files only.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGE = 'docs/requirements.md';
const CITING_FOLDERS = ['src', 'test', 'bench'] as const;
const SCRIPT_KINDS: Readonly<Record<string, ts.ScriptKind>> = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
};

/**
 * One id, or a range of one family (`R21–R30`): a family letter and 1–99 standing alone. Not part of
 * a word, a hex or base64 run (`0xD1`, `ATATT3`), a property (`x.T1`) or a template's `${n}T10:00`
 * time; not followed by `:` or `.` and a digit (a time, a version). No id has a leading zero (`T00`).
 */
const ID = /(?<![\p{L}\p{N}_$#.\-}])([RDXTFS])([1-9][0-9]?)(?:\s?[–-]\s?\1([1-9][0-9]?))?(?![\p{L}\p{N}_]|[.:][0-9])/gu;

/** Every id a text cites, each with its offset; a range stands for every id in it. */
function idsIn(text: string): { id: string; offset: number }[] {
  const found: { id: string; offset: number }[] = [];
  for (const match of text.matchAll(ID)) {
    const [, family, first, last] = match as unknown as [string, string, string, string | undefined];
    const from = Number(first);
    const to = last === undefined ? from : Number(last);
    for (let number = from; number <= Math.max(from, to); number++) found.push({ id: `${family}${number}`, offset: match.index });
  }
  return found;
}

/** The ids docs/requirements.md lists: each entry is a line `- **R19** — what it means …`. */
function listedIds(page: string): { listed: Set<string>; twice: string[] } {
  const listed = new Set<string>();
  const twice: string[] = [];
  for (const match of page.matchAll(/^- \*\*([RDXTFS][1-9][0-9]?)\*\* — \S/gm)) {
    const id = match[1]!;
    if (listed.has(id)) twice.push(id);
    listed.add(id);
  }
  return { listed, twice };
}

/** Where a source file cites an id: its comments and its string and template texts (test names among them), never its code. */
function citations(file: string, text: string): { line: number; id: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, SCRIPT_KINDS[path.extname(file)]);
  const lineOf = (offset: number): number => source.getLineAndCharacterOfPosition(offset).line + 1;
  const found: { line: number; id: string }[] = [];
  const commentsSeen = new Set<number>();
  const comment = (range: ts.CommentRange): void => {
    if (commentsSeen.has(range.pos)) return;
    commentsSeen.add(range.pos);
    for (const { id, offset } of idsIn(text.slice(range.pos, range.end))) found.push({ line: lineOf(range.pos + offset), id });
  };
  const visit = (node: ts.Node): void => {
    // A JSDoc block is read whole as the comment before its node; its parsed parts would only repeat it.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) comment(range);
    for (const range of ts.getTrailingCommentRanges(text, node.getEnd()) ?? []) comment(range);
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const start = node.getStart(source);
      for (const { id, offset } of idsIn(node.text))
        found.push({ line: lineOf(start) + (node.text.slice(0, offset).match(/\n/g)?.length ?? 0), id });
    }
    // getChildren, not forEachChild: tokens too, so a comment before a closing brace is reached.
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return found;
}

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? Promise.resolve([]) : sourceFiles(full);
      return Promise.resolve(path.extname(entry.name) in SCRIPT_KINDS ? [full] : []);
    }),
  );
  return nested.flat();
}

describe('requirement ids resolve to docs/requirements.md', () => {
  it('the pattern takes ids and ranges of ids, and nothing that only looks like one', () => {
    const ids = (text: string): string[] => idsIn(text).map(({ id }) => id);
    expect(ids("it('R19 R20 ai-zen -p migrates by itself')")).toEqual(['R19', 'R20']);
    expect(ids('checked against the evidence (F1–F4); T3/T4; (D1, D3); R21-R23')).toEqual([
      'F1',
      'F2',
      'F3',
      'F4',
      'T3',
      'T4',
      'D1',
      'D3',
      'R21',
      'R22',
      'R23',
    ]);
    expect(ids("R19's skip line; S5: warn; (X3 §4)")).toEqual(['R19', 'S5', 'X3']);
    expect(ids('2026-12-0${n}T00:00:00Z ${n}T10:30:00Z 0xD1 #F1 ATATT3 T3BlbkFJ DS3 x.T1 node-R2 S1.2 R100 T0 R1a')).toEqual([]);
  });

  it('every id cited in a comment or a string of src/, test/ and bench/ is an entry of docs/requirements.md', async () => {
    const { listed, twice } = listedIds(await fs.readFile(path.join(root, PAGE), 'utf8'));
    expect(twice, `${PAGE} lists these ids more than once`).toEqual([]);
    expect(listed.size, `${PAGE} lists no id at all: is its entry format still "- **R19** — …"?`).toBeGreaterThan(0);
    const unresolved: string[] = [];
    let cited = 0;
    for (const folder of CITING_FOLDERS) {
      for (const file of (await sourceFiles(path.join(root, folder))).sort()) {
        const text = await fs.readFile(file, 'utf8');
        // Parsing is the cost: a file with nothing that could be an id is not parsed.
        if (idsIn(text).length === 0) continue;
        for (const { line, id } of citations(file, text)) {
          cited++;
          if (!listed.has(id)) unresolved.push(`${path.relative(root, file)}:${line} cites ${id}, which ${PAGE} does not list`);
        }
      }
    }
    expect(cited, 'no requirement id found anywhere: the search itself is broken').toBeGreaterThan(100);
    expect(unresolved).toEqual([]);
  });
});
