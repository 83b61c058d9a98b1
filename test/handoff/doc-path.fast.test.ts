import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handoffDocName, localStamp, reserveHandoffDoc } from '../../src/handoff/doc-path.js';

let root: string;
let outside: string;
const originalTz = process.env.TZ;
const id = 'abcdef12-3456-4890-abcd-ef1234567890';
// 2026-12-02T02:54:18Z
const instant = new Date(Date.UTC(2026, 11, 2, 2, 54, 18));

beforeEach(async () => {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-docpath-')));
  root = path.join(base, 'project');
  outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
});

afterEach(async () => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
  await fs.rm(path.dirname(root), { recursive: true, force: true });
});

describe('the handoff document path (R3)', () => {
  it('R3 names the document <YYYYMMDD-HHmmss>-<first 8 of a UUIDv4 id>.md in local time, honouring TZ', () => {
    process.env.TZ = 'Asia/Shanghai';
    expect(localStamp(instant)).toBe('20261202-105418');
    expect(handoffDocName(instant, id)).toBe('20261202-105418-abcdef12.md');
    process.env.TZ = 'America/New_York';
    expect(handoffDocName(instant, id)).toBe('20261201-215418-abcdef12.md');
  });

  it('R3 puts it under .ai-zen/handoffs, computed once from the injected clock', async () => {
    process.env.TZ = 'UTC';
    let calls = 0;
    const doc = await reserveHandoffDoc({
      root,
      sessionId: id,
      now: () => {
        calls += 1;
        return instant;
      },
    });
    expect(calls).toBe(1);
    expect(doc.relative).toBe('.ai-zen/handoffs/20261202-025418-abcdef12.md');
    expect(doc.absolute).toBe(path.join(root, '.ai-zen', 'handoffs', '20261202-025418-abcdef12.md'));
    expect((await fs.stat(doc.absolute)).isFile()).toBe(true);
  });

  it('R3 a second handoff in the same second never overwrites the first', async () => {
    process.env.TZ = 'UTC';
    const first = await reserveHandoffDoc({ root, sessionId: id, now: () => instant });
    await fs.writeFile(first.absolute, 'the first document');
    const second = await reserveHandoffDoc({ root, sessionId: id, now: () => instant });
    const third = await reserveHandoffDoc({ root, sessionId: id, now: () => instant });
    expect(second.relative).toBe('.ai-zen/handoffs/20261202-025418-abcdef12-2.md');
    expect(third.relative).toBe('.ai-zen/handoffs/20261202-025418-abcdef12-3.md');
    expect(await fs.readFile(first.absolute, 'utf8')).toBe('the first document');
  });

  it('a symlink or a folder at the next free name (-2) is skipped for -3, not a failed handoff', async () => {
    process.env.TZ = 'UTC';
    const first = await reserveHandoffDoc({ root, sessionId: id, now: () => instant });
    await fs.writeFile(first.absolute, 'the first document');
    await fs.symlink(path.join(outside, 'target.md'), first.absolute.replace(/\.md$/, '-2.md'));
    await fs.mkdir(first.absolute.replace(/\.md$/, '-3.md'));
    const next = await reserveHandoffDoc({ root, sessionId: id, now: () => instant });
    expect(next.relative).toBe('.ai-zen/handoffs/20261202-025418-abcdef12-4.md');
    expect((await fs.lstat(next.absolute)).isFile()).toBe(true);
    // Nothing was written through the symlink.
    await expect(fs.stat(path.join(outside, 'target.md'))).rejects.toThrow();
  });

  it('R3 a session id is data: one shaped like a path is refused', async () => {
    await expect(reserveHandoffDoc({ root, sessionId: 'abc/../../..', now: () => instant })).rejects.toThrow(/not a valid session id/);
    expect(() => handoffDocName(instant, '../../etc/passwd')).toThrow(/not a valid session id/);
  });

  it('R3 a symlinked .ai-zen/handoffs folder that leads out of the project is refused', async () => {
    await fs.mkdir(path.join(root, '.ai-zen'));
    await fs.symlink(outside, path.join(root, '.ai-zen', 'handoffs'));
    await expect(reserveHandoffDoc({ root, sessionId: id, now: () => instant })).rejects.toMatchObject({ code: 'confinement' });
    expect(await fs.readdir(outside)).toEqual([]);
  });
});
