import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openStore } from '../src/db/open-store.js';
import { createServices } from '../src/services.js';
import { createFixture } from './helpers/fixture.js';
import { deleteKeys, uniquePrefix } from './helpers/redis.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

const redisUrl = inject('redisUrl');
const BIN = fileURLToPath(new URL('../bin/netgraph.js', import.meta.url));

/** A `netgraph serve` process (the built dist/, as npm test builds it first) and its URL. */
interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Starts `node bin/netgraph.js serve` on a free port and waits for its "listening" log line. */
function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DEMO_DATA: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /netgraph listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({ child, url: match[1] });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`netgraph serve exited with ${code} before listening:\n${output}`)));
  });
}

async function stopServer(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

describe.runIf(redisUrl).each(storeKinds())('two server processes sharing one Redis, on %s', (kind) => {
  const prefix = uniquePrefix();
  let database: TestDatabase;
  let key: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = loadConfig({ DATABASE_URL: database.url });
    const store = await openStore(config.database);
    try {
      await migrateToLatest(store);
      const services = createServices(store);
      await services.imports.import(createFixture());
      key = (await services.apiKeys.create({ companySlug: 'acme', label: 'two processes' })).key;
    } finally {
      await store.close();
    }
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl as string,
      REDIS_KEY_PREFIX: prefix,
      // the count is under test, not the clock: a window no slow machine can outlast, a budget that barely refills
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      COMPLEXITY_REFILL_SECONDS: '86400',
    };
    servers.push(...(await Promise.all([spawnServer(env), spawnServer(env)])));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map(stopServer));
    await deleteKeys(redisUrl as string, prefix);
    await database?.drop();
  });

  it('500 requests spread across both use up one budget: the 501st, on either, gets 429', async () => {
    const send = (server: ServerProcess) =>
      fetch(`${server.url}/api/v1/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
    const remaining: number[] = [];
    const points: number[] = [];
    const served = [0, 0];
    for (let batch = 0; batch < 25; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          served[i % 2] = (served[i % 2] ?? 0) + 1;
          return send(servers[i % 2] as ServerProcess);
        }),
      );
      for (const res of responses) {
        expect(res.status).toBe(200);
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        points.push(Number(res.headers.get('x-complexity-remaining')));
        await res.text();
      }
    }
    expect(served).toEqual([250, 250]);
    // one window and one budget: every count from 499 down to 0 seen exactly once, across both processes
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(points.sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => 250 + i));

    for (const server of servers) {
      const res = await send(server);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ title: 'Too many requests', id: 'too_many_requests', detail: 'Too many requests', status: 429 });
      expect(res.headers.get('retry-after')).toMatch(/ GMT$/);
    }
  });
});
