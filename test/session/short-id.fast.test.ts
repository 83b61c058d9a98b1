// The short id names a session wherever a person reads it, and tells sessions apart
// whatever the id scheme. The real-client proof (two Codex sessions a minute apart) is in
// test/daemon/x3-codex-ids.test.ts; these hold the rule itself and the places that check names.
import { describe, expect, it } from 'vitest';
import { pathProblem } from '../../src/daemon/committing/handoff-doc-check.js';
import { handoffDocName } from '../../src/handoff/doc-path.js';
import { resolveSessionId } from '../../src/session/resolve-session-id.js';
import { shortId } from '../../src/short-id.js';

// Two Codex ids (UUIDv7) made 40 s apart: the same first 8 characters, as the issue saw them.
const codexA = '019ae3c1-0f2a-7d41-9b6e-4c2f8a1d3e57';
const codexB = '019ae3c1-a9b0-7c02-8e13-d97a65f0b2c8';
const claude = '3f9c2b1e-8d4a-4f6b-9c2e-1a7d5e8b0f34';
const instant = new Date(Date.UTC(2026, 11, 3, 19, 0, 0));

describe('short ids', () => {
  it('two UUIDv7 ids a minute apart get distinct short ids and document names; a UUIDv4 keeps its first 8 (R3)', () => {
    expect(codexA.slice(0, 8)).toBe(codexB.slice(0, 8));
    expect(shortId(codexA)).toBe('8a1d3e57');
    expect(shortId(codexB)).toBe('65f0b2c8');
    expect(handoffDocName(instant, codexA)).not.toBe(handoffDocName(instant, codexB));
    expect(handoffDocName(instant, codexA)).toMatch(/-8a1d3e57\.md$/);
    expect(shortId(claude)).toBe('3f9c2b1e');
    expect(shortId('ai-zen-own-session-7')).toBe('ai-zen-o');
    // ULIDs are time-ordered too: two made a moment apart share their first 8 characters.
    expect(shortId('01JEQX7Z3K8M2N4P6R8T0V2W4Y')).toBe('8T0V2W4Y');
    expect(shortId('01JEQX7Z9A1B3C5D7E9F1G3H5J')).toBe('9F1G3H5J');
    // Cline's ids start with the time in ms: two of one day share their first 8 characters.
    expect(shortId('1796467914497_tbx46')).toBe('97_tbx46');
    expect(shortId('1796467657779_x6sbm')).toBe('79_x6sbm');
    expect(shortId('1796467657779_-A_b9')).toBe('79_-A_b9');
    // opencode's ids start with `ses_` and the time: two sessions a moment apart share their first 8 characters.
    expect(shortId('ses_dba40ecc2ffeJ8OTTmh1ozFcQs')).toBe('h1ozFcQs');
    expect(shortId('ses_dba3f1a24ffeQ2nVbK8xLr0pTz')).toBe('8xLr0pTz');
  });

  it('the document check stays strict: the session’s own short id, or the first 8 a document committed before was named by; never another session’s', () => {
    const named = (short: string) => `.ai-zen/handoffs/20261203-190000-${short}.md`;
    expect(pathProblem({ path: named('8a1d3e57'), sessionId: codexA })).toBeNull();
    expect(pathProblem({ path: named('019ae3c1'), sessionId: codexA })).toBeNull();
    expect(pathProblem({ path: named('65f0b2c8'), sessionId: codexA })).toMatch(/is not a document of session 8a1d3e57/);
    expect(pathProblem({ path: named('9b6e4c2f'), sessionId: codexA })).toMatch(/is not a document of session/);
    expect(pathProblem({ path: named('3f9c2b1e'), sessionId: claude })).toBeNull();
  });

  it('a session is named by its whole id, a unique prefix of it or of its short id; an ambiguous one is one line naming them', () => {
    const ids = [codexA, codexB, claude];
    expect(resolveSessionId('8a1d', ids)).toBe(codexA);
    expect(resolveSessionId('65f0b2c8', ids)).toBe(codexB);
    expect(resolveSessionId('3f9c', ids)).toBe(claude);
    expect(resolveSessionId(codexB, ids)).toBe(codexB);
    expect(() => resolveSessionId('019ae3c1', ids)).toThrow(`"019ae3c1" is ambiguous: it names 2 sessions (${codexA}, ${codexB})`);
  });
});
