// Idle clients and half frames must not lock everyone out of the daemon. Real
// server, real socket, raw clients that connect and then say nothing (or half a frame).
import { afterEach, describe, expect, it } from 'vitest';
import { connectIpc, type IpcClient } from '../../src/ipc/client.js';
import { RawClient, startFixture, type IpcFixture } from './ipc-fixture.js';
import { waitFor } from '../support/wait-for.js';

let fixture: IpcFixture | null = null;
const raws: RawClient[] = [];
const clients: IpcClient[] = [];

afterEach(async () => {
  for (const client of raws.splice(0)) client.close();
  for (const client of clients.splice(0)) await client.close();
  await fixture?.cleanup();
  fixture = null;
});

async function raw(): Promise<RawClient> {
  const client = await RawClient.connect(fixture!.socketPath);
  raws.push(client);
  return client;
}

function closedByServer(client: RawClient): Promise<void> {
  return new Promise((resolve) => {
    if (client.socket.destroyed || client.socket.readableEnded) return resolve();
    client.socket.once('close', () => resolve());
  });
}

const handlers = { status: async () => ({ pid: 1, repo: '/repo' }), stop: async () => ({ stopping: true }) };

describe('IPC connections cannot lock the daemon', () => {
  it('with every connection slot held by idle clients, status and stop still get answers: the idlest connection makes room', async () => {
    fixture = await startFixture(handlers, { limits: { maxConnections: 8 } });
    const idle: RawClient[] = [];
    for (let index = 0; index < 8; index += 1) idle.push(await raw());
    const oldest = idle[0]!;
    const gone = closedByServer(oldest);

    const first = await connectIpc({ socketPath: fixture.socketPath, timeoutMs: 5000 });
    clients.push(first);
    expect(await first.request('status', {})).toEqual({ pid: 1, repo: '/repo' });
    await gone;
    const second = await connectIpc({ socketPath: fixture.socketPath, timeoutMs: 5000 });
    clients.push(second);
    expect(await second.request('stop', {})).toEqual({ stopping: true });
    expect(fixture.logLines.some((line) => String(line.msg).includes('closing the one idle the longest'))).toBe(true);
  });

  it('a client that sends half a frame and stops is closed after the partial-frame timeout', async () => {
    fixture = await startFixture(handlers, { limits: { partialFrameTimeoutMs: 200, idleTimeoutMs: 60_000 } });
    const half = await raw();
    await half.write('{"v":1,"id":"a","type":"sta');
    await waitFor(() => half.socket.destroyed || half.socket.readableEnded, {
      timeoutMs: 10_000,
      message: 'the server to close the half-frame client',
    });
    expect(fixture.logLines.some((line) => String(line.msg).includes('sent a partial frame'))).toBe(true);
  });

  it('a client that says nothing is closed after the idle timeout; a subscriber is kept', async () => {
    fixture = await startFixture(handlers, { limits: { idleTimeoutMs: 200 } });
    const silent = await raw();
    const subscriber = await raw();
    await subscriber.write(`${JSON.stringify({ v: 1, id: 's', type: 'subscribe', params: {} })}\f`);
    expect(await subscriber.frame(1)).toMatchObject({ ok: true, result: { subscribed: true } });
    await waitFor(() => silent.socket.destroyed || silent.socket.readableEnded, {
      timeoutMs: 10_000,
      message: 'the server to close the silent client',
    });
    // The subscriber is still served: a request on it is answered.
    await subscriber.write(`${JSON.stringify({ v: 1, id: 't', type: 'status', params: {} })}\f`);
    expect(await subscriber.frame(2)).toMatchObject({ id: 't', ok: true });
  });
});
