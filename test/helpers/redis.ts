import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';

/** A key prefix no other test (or engineer) uses, so tests never touch each other's keys. */
export function uniquePrefix(): string {
  return `netgraph-test:${randomBytes(6).toString('hex')}:`;
}

/** Deletes the keys under `prefix` (never anything else: the machine's Redis is shared). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Counts the keys under `prefix`. */
export async function countKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    let count = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      count += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return count;
  } finally {
    redis.disconnect();
  }
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP proxy in front of Redis that a test can take down and bring back on
 * the same port: a real outage and reconnect, without touching the shared
 * Redis itself.
 */
export interface RedisProxy {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to the Redis at `target`. */
export async function startRedisProxy(target: string): Promise<RedisProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  const start = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect({ host: hostname, port: Number(targetPort || 6379) });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: stop,
  };
}
