import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectIpc, type IpcClient } from '../../src/ipc/client.js';
import { startIpcServer } from '../../src/ipc/server.js';
import { acquireLock } from '../../src/lock/os-lock.js';
import { AiZenError } from '../../src/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { RawClient, startFixture, type IpcFixture } from './ipc-fixture.js';
import { waitFor } from '../support/wait-for.js';

let fixture: IpcFixture | null = null;
const clients: (RawClient | IpcClient)[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) {
    if (client instanceof RawClient) client.close();
    else await client.close();
  }
  await fixture?.cleanup();
  fixture = null;
});

async function raw(): Promise<RawClient> {
  const client = await RawClient.connect(fixture!.socketPath);
  clients.push(client);
  return client;
}

async function client(): Promise<IpcClient> {
  const c = await connectIpc({ socketPath: fixture!.socketPath, timeoutMs: 5000 });
  clients.push(c);
  return c;
}

const status = { pid: 4242, repo: '/repo' };

describe('D5 IPC requests and replies', () => {
  it('D5 a client gets each reply for its request id, with params validated before the handler sees them', async () => {
    const seen: unknown[] = [];
    fixture = await startFixture({
      status: async () => status,
      handoff: async (params) => {
        seen.push(params);
        return { path: '.ai-zen/handoffs/x.md' };
      },
    });
    const c = await client();
    const [a, b] = await Promise.all([c.request('status'), c.request('handoff', { session: 'abcdefgh-1234', executor: 'offline' })]);
    expect(a).toEqual(status);
    expect(b).toEqual({ path: '.ai-zen/handoffs/x.md' });
    expect(seen).toEqual([{ session: 'abcdefgh-1234', executor: 'offline' }]);

    await expect(c.request('handoff', { executor: 'magic' } as never)).rejects.toMatchObject({ remoteCode: 'bad-request' });
    await expect(c.request('handoff', { session: '../../etc' })).rejects.toMatchObject({ remoteCode: 'bad-request' });
    expect(seen).toHaveLength(1);
  });

  it('D5 a handler failure is an error reply with its code, and the server carries on', async () => {
    fixture = await startFixture({
      handoff: async () => {
        throw new AiZenError('handoff', 'no session to hand off');
      },
      migrate: async () => {
        throw new Error('boom');
      },
      status: async () => status,
    });
    const c = await client();
    await expect(c.request('handoff')).rejects.toMatchObject({ code: 'handoff', remoteCode: 'handoff', message: 'no session to hand off' });
    await expect(c.request('migrate')).rejects.toMatchObject({ code: 'ipc', remoteCode: 'internal' });
    await expect(c.request('sessions')).rejects.toMatchObject({ remoteCode: 'not-supported' });
    expect(await c.request('status')).toEqual(status);
    expect(fixture.logLines.some((line) => line.msg === 'ipc handler failed')).toBe(true);
  });

  it('D5 the socket is 0600 in a 0700 folder', async () => {
    fixture = await startFixture({});
    const socket = await fs.stat(fixture.socketPath);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(fixture.socketPath))).mode & 0o777).toBe(0o700);
  });

  it('D5 close removes the socket and the next connect says no daemon is running', async () => {
    fixture = await startFixture({ status: async () => status });
    const c = await connectIpc({ socketPath: fixture.socketPath });
    await fixture.server.close();
    await c.closed;
    await expect(fs.stat(fixture.socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(c.request('status')).rejects.toMatchObject({ code: 'daemon' });
    await expect(connectIpc({ socketPath: fixture.socketPath, repoRoot: '/my/repo', timeoutMs: 60_000 })).rejects.toThrow(
      'no daemon is running for /my/repo',
    );
  });

  it('D5 a reply already written (stop) reaches the client when the server closes right after', async () => {
    let stopped: () => void = () => {};
    const stopRequested = new Promise<void>((resolve) => (stopped = resolve));
    fixture = await startFixture({
      stop: async () => {
        stopped();
        return { stopping: true };
      },
    });
    const c = await client();
    const reply = c.request('stop');
    await stopRequested;
    await new Promise((resolve) => setImmediate(resolve)); // the reply is written after the handler resolves
    await fixture.server.close();
    expect(await reply).toEqual({ stopping: true });
  });
});

describe('D5 IPC safety', () => {
  it('D5 serving is refused without the daemon lock held (a second server would steal the live socket)', async () => {
    fixture = await startFixture({ status: async () => status });
    const released = await acquireLock(`test-ipc-released-${randomUUID().slice(0, 8)}`);
    await released!.release();
    await expect(
      startIpcServer({ socketPath: fixture.socketPath, handlers: {}, logger: silentLogger(), lock: released! }),
    ).rejects.toMatchObject({ code: 'daemon' });
    // The live server is untouched.
    const c = await client();
    expect(await c.request('status')).toEqual(status);
  });

  it('D5 under the lock, a dead daemon’s leftover socket file is replaced', async () => {
    fixture = await startFixture({ status: async () => status });
    const { socketPath } = fixture;
    await fixture.server.close();
    await fs.writeFile(socketPath, 'left behind');
    const lock = await acquireLock(`test-ipc-second-${randomUUID().slice(0, 8)}`);
    const server = await startIpcServer({
      socketPath,
      handlers: { status: async () => ({ second: true }) },
      logger: silentLogger(),
      lock: lock!,
    });
    try {
      const c = await connectIpc({ socketPath });
      expect(await c.request('status')).toEqual({ second: true });
      await c.close();
    } finally {
      await server.close();
      await lock!.release();
    }
  });

  it('D5 garbage gets error replies and the server carries on: bad JSON, non-objects, no type, wrong version, unknown type', async () => {
    fixture = await startFixture({ status: async () => status });
    const r = await raw();
    await r.write('not json\f');
    expect(await r.frame(1)).toMatchObject({ v: 1, id: null, ok: false, error: { code: 'bad-json' } });
    await r.write('[1,2]\f42\f');
    expect(await r.frame(2)).toMatchObject({ ok: false, error: { code: 'bad-json' } });
    expect(await r.frame(3)).toMatchObject({ ok: false, error: { code: 'bad-json' } });
    // This exact frame throws inside bare node-ipc's emitter and kills the process.
    await r.write('{"data":1}\f');
    expect(await r.frame(4)).toMatchObject({ ok: false, error: { code: 'unsupported-version' } });
    await r.write('{"v":1,"id":"a","data":1}\f{"type":"close","data":{}}\f');
    expect(await r.frame(5)).toMatchObject({ id: 'a', ok: false, error: { code: 'unknown-type' } });
    expect(await r.frame(6)).toMatchObject({ ok: false, error: { code: 'unsupported-version' } });
    await r.write('{"v":2,"id":"b","type":"status"}\f{"v":1,"id":"c","type":"format-disk"}\f{"v":1,"id":7,"type":"status"}\f');
    expect(await r.frame(7)).toMatchObject({ id: 'b', ok: false, error: { code: 'unsupported-version' } });
    expect(await r.frame(8)).toMatchObject({ id: 'c', ok: false, error: { code: 'unknown-type' } });
    expect(await r.frame(9)).toMatchObject({ id: null, ok: false, error: { code: 'bad-request' } });
    await r.write(Buffer.from([0xff, 0xfe, 0x00, 0x0c]));
    expect(await r.frame(10)).toMatchObject({ ok: false, error: { code: 'bad-json' } });

    // Same connection, then a fresh one: both still served.
    await r.write('{"v":1,"id":"ok1","type":"status"}\f');
    expect(await r.frame(11)).toEqual({ v: 1, id: 'ok1', ok: true, result: status });
    const c = await client();
    expect(await c.request('status')).toEqual(status);
  });

  it('D5 a request split across writes, even inside a UTF-8 character, is reassembled', async () => {
    fixture = await startFixture({ handoff: async (params) => params });
    const r = await raw();
    const bytes = Buffer.from('{"v":1,"id":"é-split","type":"handoff","params":{"executor":"summary"}}\f');
    const cut = bytes.indexOf(0xc3) + 1; // inside the two-byte é
    await r.write(bytes.subarray(0, cut));
    await r.write(bytes.subarray(cut, cut + 10));
    await r.write(bytes.subarray(cut + 10));
    expect(await r.frame(1)).toEqual({ v: 1, id: 'é-split', ok: true, result: { executor: 'summary' } });
  });

  it('D5 an oversized message is refused without being buffered, even one with no delimiter that keeps growing', async () => {
    const maxRequestBytes = 64 * 1024;
    fixture = await startFixture({ status: async () => status }, { maxRequestBytes });
    const r = await raw();
    // No delimiter: 4 × the cap in pieces. One error reply, the rest is discarded as it comes.
    const piece = Buffer.alloc(32 * 1024, 'x');
    for (let i = 0; i < 8; i++) await r.write(piece);
    expect(await r.frame(1)).toMatchObject({ id: null, ok: false, error: { code: 'too-large' } });
    // The oversized frame ends at the next delimiter; after it the connection is usable again.
    await r.write('more garbage\f{"v":1,"id":"after","type":"status"}\f');
    expect(await r.frame(2)).toEqual({ v: 1, id: 'after', ok: true, result: status });
    expect(r.frames).toHaveLength(2);

    // One oversized frame that arrives whole with its delimiter.
    await r.write(Buffer.concat([Buffer.alloc(maxRequestBytes + 1, 'y'), Buffer.from('\f')]));
    expect(await r.frame(3)).toMatchObject({ ok: false, error: { code: 'too-large' } });
    expect(fixture.logLines.filter((line) => line.msg === 'ipc request too large; refused')).toHaveLength(2);
  });

  it('D5 the default cap is 1 MiB: a 1.5 MiB message without a delimiter gets an error reply', async () => {
    fixture = await startFixture({ status: async () => status });
    const r = await raw();
    await r.write(Buffer.alloc(1536 * 1024, '{'));
    expect(await r.frame(1)).toMatchObject({ ok: false, error: { code: 'too-large', message: expect.stringContaining('1048576') } });
    const c = await client();
    expect(await c.request('status')).toEqual(status);
  });
});

describe('D5 IPC events', () => {
  it('D5 subscribers receive catalogue events; others do not; an event that breaks its schema is dropped', async () => {
    fixture = await startFixture({});
    const subscriber = await client();
    const received: unknown[] = [];
    await subscriber.subscribe((event) => received.push(event));
    const bystander = await raw();
    await bystander.write('{"v":1,"id":"s","type":"status"}\f');
    await bystander.frame(1);

    fixture.server.publish({
      name: 'session.overflowed',
      payload: { sessionId: 's1', promptTokens: 130, maxContextTokens: 128, source: 'ai-zen' },
    });
    fixture.server.publish({ name: 'handoff.committed', payload: { path: 'a.md', commit: 'abc' } } as never);
    fixture.server.publish({ name: 'handoff.committed', payload: { path: 'a.md' } } as never);
    fixture.server.publish({ name: 'no.such.event', payload: {} } as never);
    fixture.server.publish({ name: 'error', payload: { message: 'last' } });
    await waitFor(() => received.length >= 3);
    expect(received).toEqual([
      { name: 'session.overflowed', payload: { sessionId: 's1', promptTokens: 130, maxContextTokens: 128, source: 'ai-zen' } },
      { name: 'handoff.committed', payload: { path: 'a.md', commit: 'abc' } },
      { name: 'error', payload: { message: 'last' } },
    ]);
    expect(bystander.frames).toHaveLength(1);
    expect(fixture.logLines.filter((line) => String(line.msg).includes('does not match the catalogue'))).toHaveLength(2);
  });

  it('D5 raw subscribers see the versioned event envelope', async () => {
    fixture = await startFixture({});
    const r = await raw();
    await r.write('{"v":1,"id":"sub","type":"subscribe"}\f');
    expect(await r.frame(1)).toEqual({ v: 1, id: 'sub', ok: true, result: { subscribed: true } });
    fixture.server.publish({ name: 'session.migrated', payload: { oldId: 'old-session', newId: 'new-session', path: 'x.md' } });
    expect(await r.frame(2)).toEqual({
      v: 1,
      event: { name: 'session.migrated', payload: { oldId: 'old-session', newId: 'new-session', path: 'x.md' } },
    });
  });
});
