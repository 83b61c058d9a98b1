// SHA-256 of a string (its UTF-8 bytes), hex: the lock and socket names. Written out (FIPS 180-4)
// rather than node:crypto, whose loading cost ~3 ms of every hook and statusline run (each a fresh
// process, ~10% of a bare node start), and rather than @noble/hashes, whose general hasher was half
// of the lean hook's bundle to compile on every run. A name is a few dozen bytes: what counts is the
// first call in a fresh process, so plain typed arrays (Buffer's read and write methods and
// padStart cost a hook ~0.3 ms to set up for their first use).
// test/lock/sha256.fast.test.ts holds it to node:crypto's digest.

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const rotr = (word: number, shift: number): number => (word >>> shift) | (word << (32 - shift));

export function sha256Hex(text: string): string {
  const data = Buffer.from(text, 'utf8');
  // The message, a 1 bit, zeros, and its length in bits as 64 bits big-endian: whole 64-byte blocks.
  const length = Math.ceil((data.length + 9) / 64) * 64;
  const message = new Uint8Array(length);
  message.set(data);
  message[data.length] = 0x80;
  const high = Math.floor(data.length / 0x20000000);
  const low = (data.length * 8) >>> 0;
  for (let i = 0; i < 4; i += 1) {
    message[length - 8 + i] = high >>> (24 - 8 * i);
    message[length - 4 + i] = low >>> (24 - 8 * i);
  }
  const hash = new Uint32Array(INITIAL);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < length; offset += 64) {
    for (let i = 0; i < 16; i += 1) {
      const at = offset + i * 4;
      w[i] = (message[at]! << 24) | (message[at + 1]! << 16) | (message[at + 2]! << 8) | message[at + 3]!;
    }
    for (let i = 16; i < 64; i += 1) {
      const s0 = rotr(w[i - 15]!, 7) ^ rotr(w[i - 15]!, 18) ^ (w[i - 15]! >>> 3);
      const s1 = rotr(w[i - 2]!, 17) ^ rotr(w[i - 2]!, 19) ^ (w[i - 2]! >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let a = hash[0]!;
    let b = hash[1]!;
    let c = hash[2]!;
    let d = hash[3]!;
    let e = hash[4]!;
    let f = hash[5]!;
    let g = hash[6]!;
    let h = hash[7]!;
    for (let i = 0; i < 64; i += 1) {
      const t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!;
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    hash[0]! += a;
    hash[1]! += b;
    hash[2]! += c;
    hash[3]! += d;
    hash[4]! += e;
    hash[5]! += f;
    hash[6]! += g;
    hash[7]! += h;
  }
  let hex = '';
  // 2^32 added: every word as 9 hex digits, its leading 1 dropped (padStart's first use costs more).
  for (const word of hash) hex += (word + 0x100000000).toString(16).slice(1);
  return hex;
}
