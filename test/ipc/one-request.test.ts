// The lean entries' one request (a hook's, the statusline's), through both ways it opens a socket:
// Node's own pipe handle (node-pipe.ts) and node:net, which a Node without that handle as tried gets.
// Real Unix sockets; a daemon killed with -9 (its socket file left behind) is a real process.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodePipe } from '../../src/ipc/node-pipe.js';
import { netConnect, requestOnce, type Connect } from '../../src/ipc/one-request.js';

let base: string;
const servers: net.Server[] = [];
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-zen-or-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await fs.rm(base, { recursive: true, force: true });
});

/** A daemon stand-in: `answer` gets each request's id on its connection. */
async function serve(name: string, answer: (socket: net.Socket, id: string) => void): Promise<string> {
  const socketPath = path.join(base, name);
  const server = net.createServer((socket) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\f');
      if (end !== -1) answer(socket, (JSON.parse(text.slice(0, end)) as { id: string }).id);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return socketPath;
}

it('Node’s pipe handle is there on the Node this runs (every major it was tried on has it)', () => {
  expect(nodePipe()).not.toBeNull();
});

it('a Node without the pipe handle as tried (no process.binding), or told to warn of pending deprecations, gets its answer through node:net, nothing on stderr', async () => {
  const socketPath = await serve('fallback.sock', (socket, id) =>
    socket.write(`${JSON.stringify({ v: 1, id, ok: true, result: 'ok' })}\f`),
  );
  const built = path.resolve(import.meta.dirname, '..', '..', 'dist', 'ipc');
  const script = (prelude: string) =>
    [
      prelude,
      `const { nodePipe } = await import(${JSON.stringify(path.join(built, 'node-pipe.js'))});`,
      `const { requestOnce } = await import(${JSON.stringify(path.join(built, 'one-request.js'))});`,
      `const outcome = await requestOnce(${JSON.stringify(socketPath)}, 'status', undefined, 5000);`,
      'console.log(JSON.stringify({ pipe: nodePipe() !== null, outcome }));',
    ].join('\n');
  for (const [prelude, env] of [
    ['delete process.binding;', {}],
    ['', { NODE_PENDING_DEPRECATION: '1' }],
  ] as const) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script(prelude)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    expect({ stderr, result: JSON.parse(stdout) }).toEqual({
      stderr: '',
      result: { pipe: false, outcome: { kind: 'answered', result: 'ok' } },
    });
  }
});

const transports: [string, Connect][] = [
  ['Node’s pipe handle', (socketPath, events) => nodePipe()!.connect(socketPath, events)],
  ['node:net', netConnect],
];

describe.each(transports)('one request through %s', (_name, connect) => {
  it('an answer sent in pieces of three bytes, other frames first, comes whole with its text past ASCII', async () => {
    const socketPath = await serve('pieces.sock', (socket, id) => {
      const bytes = Buffer.from(
        `${JSON.stringify({ v: 1, event: { name: 'x' } })}\f${JSON.stringify({ v: 1, id: 'other', ok: true })}\f${JSON.stringify({ v: 1, id, ok: true, result: { line: 'ctx 62% · héllo ✓ 日本' } })}\f`,
      );
      let offset = 0;
      const next = () => {
        socket.write(bytes.subarray(offset, offset + 3));
        offset += 3;
        if (offset < bytes.length) setImmediate(next);
      };
      next();
    });
    await expect(requestOnce(socketPath, 'statusline', { agent: 'claude-code' }, 5000, connect)).resolves.toEqual({
      kind: 'answered',
      result: { line: 'ctx 62% · héllo ✓ 日本' },
    });
  });

  it('a request far larger than a socket buffer arrives whole, and a refusal keeps its code', async () => {
    let received = 0;
    const socketPath = await serve('large.sock', (socket, id) => {
      received = socket.bytesRead;
      socket.write(`${JSON.stringify({ v: 1, id, ok: false, error: { code: 'unknown-type', message: 'no such request' } })}\f`);
    });
    const input = 'y'.repeat(600_000);
    await expect(requestOnce(socketPath, 'agent-hook-input', { input }, 5000, connect)).resolves.toEqual({
      kind: 'refused',
      code: 'unknown-type',
      message: 'no such request',
    });
    expect(received).toBeGreaterThan(600_000);
  });

  it('no socket, and the socket file of a daemon killed with -9, are no daemon', async () => {
    await expect(requestOnce(path.join(base, 'none.sock'), 'status', undefined, 5000, connect)).resolves.toEqual({ kind: 'no-daemon' });
    const stale = path.join(base, 'stale.sock');
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect((await fs.stat(stale)).isSocket()).toBe(true);
    await expect(requestOnce(stale, 'status', undefined, 5000, connect)).resolves.toEqual({ kind: 'no-daemon' });
  });

  it('a daemon that closes without an answer, one that never answers, one that answers too much: no answer, and why', async () => {
    const closes = await serve('closes.sock', (socket) => socket.end());
    await expect(requestOnce(closes, 'status', undefined, 5000, connect)).resolves.toEqual({
      kind: 'no-answer',
      why: 'the daemon closed the connection',
    });
    const silent = await serve('silent.sock', () => {});
    await expect(requestOnce(silent, 'status', undefined, 200, connect)).resolves.toEqual({
      kind: 'no-answer',
      why: 'no answer within 200 ms',
    });
    const flood = await serve('flood.sock', (socket) => socket.write(Buffer.alloc(70_000, 'x')));
    await expect(requestOnce(flood, 'status', undefined, 5000, connect)).resolves.toEqual({
      kind: 'no-answer',
      why: 'the reply is too large',
    });
  });
});
