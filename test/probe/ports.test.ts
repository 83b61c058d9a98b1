import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PortFact } from '../../src/probe/facts.js';
import { captureListeningPorts } from '../../src/probe/ports.js';
import { parseEndpoint, parseLsofRecords } from '../../src/probe/ports-lsof.js';
import { formatAddress, parseProcNetTcp } from '../../src/probe/proc-net-tcp.js';
import { makeTempRepo } from '../support/temp-repo.js';
import { startListeningServer } from './listening-server.js';

const hasLsof = (() => {
  try {
    execFileSync('lsof', ['-v'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // `lsof -v` exits non-zero on some systems but still exists.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
})();

async function portsOf(root: string, platform: NodeJS.Platform): Promise<readonly PortFact[]> {
  const result = await captureListeningPorts(root, { platform });
  if (!result.known) throw new Error(`ports unknown: ${result.why}`);
  return result.value;
}

describe('captureListeningPorts', () => {
  it.runIf(process.platform === 'linux')(
    'D2 X2 reports the listening ports of a process running inside the project, not one outside (/proc)',
    async () => {
      await using repo = await makeTempRepo();
      await using outside = await makeTempRepo({ git: false });
      const serverDir = path.join(repo.root, 'packages', 'web');
      await fs.mkdir(serverDir, { recursive: true });
      await using inside = await startListeningServer(serverDir);
      await using stranger = await startListeningServer(outside.root);

      const ports = await portsOf(repo.root, 'linux');
      expect(ports).toContainEqual({ pid: inside.pid, command: 'node', port: inside.port, address: '127.0.0.1' });
      if (inside.port6 !== null) {
        expect(ports).toContainEqual({ pid: inside.pid, command: 'node', port: inside.port6, address: '::1' });
      }
      expect(ports.some((fact) => fact.pid === stranger.pid)).toBe(false);
      expect(ports.every((fact) => fact.pid === inside.pid)).toBe(true);
    },
  );

  it.runIf(hasLsof)('D2 X2 the lsof probe (macOS) reports the same process and port', async () => {
    await using repo = await makeTempRepo();
    await using outside = await makeTempRepo({ git: false });
    await using inside = await startListeningServer(repo.root);
    await using stranger = await startListeningServer(outside.root);

    const ports = await portsOf(repo.root, 'darwin');
    expect(ports).toContainEqual({ pid: inside.pid, command: 'node', port: inside.port, address: '127.0.0.1' });
    expect(ports.some((fact) => fact.pid === stranger.pid)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('D2 no listeners in the project is a known empty list', async () => {
    await using repo = await makeTempRepo();
    expect(await portsOf(repo.root, 'linux')).toEqual([]);
  });

  it('X2 a probe that cannot run says why instead of throwing', async () => {
    await using repo = await makeTempRepo();
    const noProc = await captureListeningPorts(repo.root, { platform: 'linux', proc: path.join(repo.root, 'no-proc') });
    expect(noProc).toEqual({ known: false, why: expect.stringContaining('cannot read') });
    const noLsof = await captureListeningPorts(repo.root, {
      platform: 'darwin',
      runLsof: () => Promise.reject(Object.assign(new Error('spawn lsof ENOENT'), { code: 'ENOENT' })),
    });
    expect(noLsof).toEqual({ known: false, why: 'lsof failed: spawn lsof ENOENT' });
    expect(await captureListeningPorts(repo.root, { platform: 'win32' })).toEqual({
      known: false,
      why: 'listening ports are not probed on win32',
    });
  });
});

describe('socket table parsing', () => {
  it('D2 reads only LISTEN rows of /proc/net/tcp and decodes host-order addresses', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0',
      '   1: 0100007F:1F91 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0 20 4 30 10 -1',
    ].join('\n');
    expect(parseProcNetTcp(table, 'LE')).toEqual([{ inode: '4242', address: '127.0.0.1', port: 8080 }]);
    const table6 = [
      '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 77 1 0 100 0 0 10 0',
    ].join('\n');
    expect(parseProcNetTcp(table6, 'LE')).toEqual([{ inode: '77', address: '::1', port: 3000 }]);
  });

  it('D2 formats IPv6 addresses compactly', () => {
    expect(formatAddress(new Array<number>(16).fill(0))).toBe('::');
    expect(formatAddress([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])).toBe('2001:db8::1');
    expect(formatAddress([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1])).toBe('::ffff:127.0.0.1');
  });

  it('D2 reads lsof -F records and endpoints', () => {
    expect(parseLsofRecords('p12\ncnode\nf20\nn*:3000\nn[::1]:3001\np13\ncvite\nn127.0.0.1:5173\n')).toEqual([
      { pid: 12, command: 'node', names: ['*:3000', '[::1]:3001'] },
      { pid: 13, command: 'vite', names: ['127.0.0.1:5173'] },
    ]);
    expect(parseEndpoint('[::1]:3001')).toEqual({ address: '::1', port: 3001 });
    expect(parseEndpoint('no-port')).toBeNull();
  });
});
