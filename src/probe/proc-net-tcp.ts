// Listening sockets from /proc/net/tcp and /proc/net/tcp6 (Linux). Addresses there are hex
// words in host byte order; the port is plain big-endian hex.
import os from 'node:os';

export interface ListeningSocket {
  readonly inode: string;
  readonly address: string;
  readonly port: number;
}

const LISTEN = '0A';

export function parseProcNetTcp(text: string, endianness: 'LE' | 'BE' = os.endianness()): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    const local = fields[1];
    const state = fields[3];
    const inode = fields[9];
    if (local === undefined || state !== LISTEN || inode === undefined || inode === '0') continue;
    const [hexAddress, hexPort] = local.split(':');
    if (hexAddress === undefined || hexPort === undefined) continue;
    const bytes = addressBytes(hexAddress, endianness);
    if (bytes === null) continue;
    sockets.push({ inode, address: formatAddress(bytes), port: Number.parseInt(hexPort, 16) });
  }
  return sockets;
}

function addressBytes(hex: string, endianness: 'LE' | 'BE'): number[] | null {
  if (hex.length !== 8 && hex.length !== 32) return null;
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes: number[] = [];
    for (let offset = 0; offset < 8; offset += 2) wordBytes.push(Number.parseInt(hex.slice(word + offset, word + offset + 2), 16));
    if (endianness === 'LE') wordBytes.reverse();
    bytes.push(...wordBytes);
  }
  return bytes.some(Number.isNaN) ? null : bytes;
}

/** Dotted IPv4, or IPv6 with the longest zero run compressed and IPv4-mapped tails dotted. */
export function formatAddress(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
  const isMapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (isMapped) return `::ffff:${bytes.slice(12).join('.')}`;
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
