// SHA-256 of a string (its UTF-8 bytes), hex: the lock and socket names. From @noble/hashes rather
// than node:crypto because loading node:crypto cost ~3 ms of every hook and statusline run (each a
// fresh process, ~10% of a bare node start); a name is a few dozen bytes, hashed in microseconds.
// test/lock/sha256.fast.test.ts holds it to node:crypto's digest.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
