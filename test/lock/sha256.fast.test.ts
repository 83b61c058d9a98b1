// The written-out SHA-256 names every lock and socket: a digest that differed from node:crypto's would
// put a new hook on another socket than a running daemon's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lock/sha256.js';

describe('sha256Hex', () => {
  it('is node:crypto’s SHA-256 for empty, ASCII, multi-byte and every length across the block boundaries', () => {
    const inputs = ['', 'abc', '/home/me/src/app', 'répertoire/日本語/🙂', 'a'.repeat(1000)];
    for (let length = 0; length <= 200; length += 1) inputs.push('x/'.repeat(length).slice(0, length));
    for (const input of inputs) expect(sha256Hex(input)).toBe(createHash('sha256').update(input).digest('hex'));
  });
});
