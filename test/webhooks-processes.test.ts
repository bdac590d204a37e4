import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openRuntime } from '../src/runtime.js';
import type { Runtime } from '../src/runtime.js';
import { runNetgraph } from './helpers/cli.js';
import { createFixture } from './helpers/fixture.js';
import { startServerProcess } from './helpers/processes.js';
import type { ServerProcess } from './helpers/processes.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';

// Webhooks across processes: the CLI, a server killed mid-delivery, two servers sharing one outbox.
const SERVER_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', WEBHOOK_TIMEOUT_SECONDS: '2' };

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(storeKinds())('webhooks across processes on %s', (kind) => {
  let database: TestDatabase;
  let runtime: Runtime;
  let hook: WebhookReceiver;
  const servers: ServerProcess[] = [];
  const env = () => ({ DATABASE_URL: database.url, ...SERVER_ENV });
  const cli = async (args: string[]) => {
    const result = await runNetgraph(['webhooks', ...args], env());
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  const serve = async () => {
    const server = await startServerProcess(env());
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    expect((await runNetgraph(['migrate'], env())).code).toBe(0);
    runtime = await openRuntime(loadConfig(env()), { poolSize: 4 });
    await runtime.services.imports.import(createFixture());
    hook = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    await runtime?.close();
    await hook?.close();
    await database?.drop();
  });

  it('manages endpoints from the CLI: create prints the secret once, deliveries, replay, rotate-secret, delete', async () => {
    const created = JSON.parse(await cli(['create', '--company', 'acme', '--label', 'pager', '--url', hook.url, '--alerts', 'DEVICE_OFFLINE,DEVICE_ONLINE', '--json']));
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), label: 'pager', url: hook.url, secret: expect.stringMatching(/^whsec_/), alerts: ['DEVICE_OFFLINE', 'DEVICE_ONLINE'] });
    expect(await cli(['list', '--company', 'acme'])).toContain(created.id);
    expect(await cli(['list', '--company', 'globex'])).toBe('No webhooks for globex.\n');
    expect(await cli(['list', '--company', 'acme'])).not.toContain('whsec_');

    const server = await serve();
    const test = JSON.parse(await cli(['test', created.id, '--json']));
    const [first] = await hook.waitFor(1, 30_000);
    expect(() => new Webhook(created.secret).verify(first?.body ?? '', first?.headers ?? {})).not.toThrow();
    const log = await until('the delivery log', async () => {
      const list = JSON.parse(await cli(['deliveries', '--company', 'acme', '--json']));
      return list[0]?.state === 'delivered' ? list : undefined;
    });
    expect(log[0]).toMatchObject({ id: test.id, alert: 'TEST', attempts: 1, log: [{ status: 200, response: 'ok' }] });
    expect(JSON.parse(await cli(['deliveries', '--company', 'globex', '--json']))).toEqual([]);

    expect(await cli(['replay', test.id])).toContain('queued 1 message again');
    const [, replayed] = await hook.waitFor(2, 30_000);
    expect(replayed?.headers['webhook-id']).toBe(test.id);

    const rotated = JSON.parse(await cli(['rotate-secret', created.id, '--json']));
    expect(rotated.secret).not.toBe(created.secret);
    await cli(['test', created.id]);
    const [, , third] = await hook.waitFor(3, 30_000);
    expect(third?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret).verify(third?.body ?? '', third?.headers ?? {})).not.toThrow();

    expect(await cli(['delete', created.id])).toContain('is deleted');
    expect(await cli(['list', '--company', 'acme'])).toBe('No webhooks for acme.\n');
    const audit = await runNetgraph(['audit', 'list', '--company', 'acme', '--json'], env());
    const actions = (JSON.parse(audit.stdout) as { action: string; objectId: string }[]).filter((e) => e.objectId === created.id).map((e) => e.action);
    expect(actions).toEqual(['webhook.create', 'webhook.test', 'webhook.rotate_secret', 'webhook.test', 'webhook.delete']);
    expect(audit.stdout).not.toContain('whsec_');
    await server.stop();
  }, 120_000);

  it('delivers a message again after its server was killed mid-delivery: at least once, never lost', async () => {
    const acme = await runtime.services.webhooks.cliCaller('acme');
    const { endpoint } = await runtime.services.webhooks.createEndpoint(acme, { label: 'kill', url: hook.url, rules: [{ alert: 'WAN_UP' }] });
    const before = hook.received.length;
    hook.hold();
    const server = await serve();
    const sent = await runtime.services.webhooks.sendTestEvent(acme, { endpointId: endpoint.id });
    await hook.waitFor(before + 1, 30_000);
    expect(await server.stop('SIGKILL')).toBeNull();
    hook.release();
    expect((await runtime.services.webhooks.listDeliveries(acme, { messageId: sent.id }))[0]).toMatchObject({ state: 'pending', log: [] });

    await serve();
    // the dead process's claim lapses (2 x WEBHOOK_TIMEOUT_SECONDS + 5 s), then the new one delivers
    await hook.waitFor(before + 2, 30_000);
    const delivered = await until('the delivery', async () => {
      const [delivery] = await runtime.services.webhooks.listDeliveries(acme, { messageId: sent.id });
      return delivery?.state === 'delivered' ? delivery : undefined;
    });
    expect(delivered.log.map((attempt) => attempt.status)).toEqual([200]);
    expect(hook.received.slice(before).map((d) => d.headers['webhook-id'])).toEqual([sent.id, sent.id]);
    await runtime.services.webhooks.deleteEndpoint(acme, { endpointId: endpoint.id });
  }, 60_000);

  it.runIf(kind === 'postgres')('never has two processes attempt the same message at once', async () => {
    const acme = await runtime.services.webhooks.cliCaller('acme');
    const { endpoint } = await runtime.services.webhooks.createEndpoint(acme, { label: 'two', url: hook.url, rules: [{ alert: 'WAN_UP' }] });
    // the server started after the kill still runs: with this one, two processes claim from one outbox
    expect(servers.filter((server) => server.child.exitCode === null && server.child.signalCode === null)).toHaveLength(1);
    await serve();
    const before = hook.received.length;
    const ids = new Set<string>();
    for (let i = 0; i < 300; i++) ids.add((await runtime.services.webhooks.sendTestEvent(acme, { endpointId: endpoint.id })).id);
    await hook.waitFor(before + ids.size, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const received = hook.received.slice(before).map((d) => d.headers['webhook-id'] ?? '');
    expect(received).toHaveLength(ids.size);
    expect(new Set(received)).toEqual(ids);
    const log = await runtime.services.webhooks.listDeliveries(acme, { endpointId: endpoint.id, limit: 1_000 });
    expect(log.filter((d) => d.state === 'delivered' && d.log.length === 1)).toHaveLength(ids.size);
  }, 90_000);
});
