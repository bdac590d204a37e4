import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from './webhook.http.js';

/**
 * A receiver on 127.0.0.1 that speaks HTTP/1.1 by hand, so a test decides
 * what each connection does with its nth request: answer it (keeping the
 * connection open, with the Keep-Alive header given) or reset the connection
 * without a word, as a receiver that closed an idle connection does.
 */
async function startRawReceiver(onRequest: (nth: number) => 'answer' | 'reset', keepAlive?: string) {
  const connections: { requests: number; closedAt: number | undefined }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const connection = { requests: 0, closedAt: undefined as number | undefined };
    connections.push(connection);
    socket.on('close', () => {
      connection.closedAt = performance.now();
    });
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(pending.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        connection.requests += 1;
        if (onRequest(connection.requests) === 'reset') {
          socket.resetAndDestroy();
          return;
        }
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n${keepAlive === undefined ? '' : `Keep-Alive: ${keepAlive}\r\n`}\r\nok`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target = { url: new URL(`http://127.0.0.1:${port}/hook`), address: '127.0.0.1', family: 4 as const };
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { target, connections, close };
}

const post = (target: Parameters<typeof postWebhook>[0]) => postWebhook(target, {}, '{"metadata":{},"data":{}}', 5_000);

describe('webhook POSTs on kept-alive connections', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('sends again at once on a new connection when the receiver closed the kept one as the message went out', async () => {
    // each connection answers its first request and resets on the next: the second message finds its kept connection gone
    const receiver = await startRawReceiver((nth) => (nth === 1 ? 'answer' : 'reset'));
    closers.push(receiver.close);
    expect(await post(receiver.target)).toMatchObject({ status: 200, error: null, response: 'ok' });
    expect(await post(receiver.target)).toMatchObject({ status: 200, error: null, response: 'ok' });
    expect(receiver.connections.map((c) => c.requests)).toEqual([2, 1]);
  });

  it('fails the attempt, without sending again, when a new connection is reset', async () => {
    const receiver = await startRawReceiver(() => 'reset');
    closers.push(receiver.close);
    const outcome = await post(receiver.target);
    expect(outcome).toMatchObject({ status: null, response: null });
    expect(outcome.error).toMatch(/^ECONNRESET/);
    expect(receiver.connections.map((c) => c.requests)).toEqual([1]);
  });

  it('closes an idle connection a second before the receiver\'s Keep-Alive timeout', async () => {
    const receiver = await startRawReceiver(() => 'answer', 'timeout=2');
    closers.push(receiver.close);
    const sent = performance.now();
    expect(await post(receiver.target)).toMatchObject({ status: 200 });
    const deadline = Date.now() + 3_000;
    while (receiver.connections[0]?.closedAt === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const idle = (receiver.connections[0]?.closedAt ?? Number.POSITIVE_INFINITY) - sent;
    expect(idle).toBeGreaterThan(800);
    expect(idle).toBeLessThan(1_900);
  });
});
