import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../src/kernel/caller.js';
import type { DeliveryInfo } from '../src/features/webhook/webhook.service.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { settled } from './helpers/changes.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';

// Webhooks end to end: reports and writes in, signed deliveries out to real receivers on 127.0.0.1, under an injected clock.
const OFFLINE_AFTER_SECONDS = 60;
const DEVICE_ALERTS = ['DEVICE_OFFLINE', 'DEVICE_ONLINE', 'DEVICE_BOOT', 'WAN_DOWN', 'WAN_UP'];

const alertOf = (delivery: ReceivedWebhook) => (JSON.parse(delivery.body) as { metadata: { alert_name: string } }).metadata.alert_name;
const FEED_PAGE = /* GraphQL */ `
  query ($after: String) { changes(after: $after, limit: 1000) { changes { cursor objectType objectUUID kind } endCursor hasMore } }
`;
type FeedChange = { cursor: string; objectType: string; objectUUID: string; kind: string };
type Body = { metadata: Record<string, unknown>; data: Record<string, unknown> };

const wired = (macAddress: string) => ({ macAddress, ip: null, hostname: null, isWireless: false, signal: null, vlanID: 10, ssid: null, portNumber: 3 });

describe.each(storeKinds())('webhooks on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  let acme: Caller;
  let globex: Caller;
  const receivers: WebhookReceiver[] = [];
  const now = () => new Date(clock.now()).toISOString();
  const services = () => app.server.services;
  const post = async (reports: Record<string, unknown>[]) => {
    const response = await postReports(app, ingestKey, reports);
    expect(response.body).toMatchObject({ accepted: reports.length, rejected: [] });
  };
  const receiver = async () => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };
  const endpoint = async (url: string, rules: { alert: string; networks?: string[]; threshold?: number }[], caller = acme) =>
    services().webhooks.createEndpoint(caller, { label: 'test receiver', url, rules });
  /** The endpoint's delivery log once `done` holds of it (the background tasks deliver on their own timers). */
  const deliveries = async (caller: Caller, endpointId: string, done: (list: DeliveryInfo[]) => boolean): Promise<DeliveryInfo[]> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const list = await services().webhooks.listDeliveries(caller, { endpointId });
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`delivery log never settled: ${JSON.stringify(list, null, 1)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, {
      data: createFixture(),
      clock: clock.now,
      env: { DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' },
    });
    ingestKey = await createScopedKey(app, 'ingest');
    acme = await services().webhooks.cliCaller('acme');
    globex = await services().webhooks.cliCaller('globex');
  });
  afterAll(async () => {
    await app?.close();
    for (const r of receivers) await r.close();
  });

  it('sends each device alert once per transition, signed so that standardwebhooks verifies it', async () => {
    const hook = await receiver();
    const { endpoint: created, secret } = await endpoint(hook.url, DEVICE_ALERTS.map((alert) => ({ alert, networks: [IDS.acmeHq] })));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    await post([report(SERIALS.acmeSwitch, now())]); // imported offline: DEVICE_ONLINE
    clock.advance(20_000);
    await post([report(SERIALS.acmeSwitch, now())]); // still online: nothing
    clock.advance(200_000);
    expect(await services().reports.checkOffline()).toBeGreaterThan(0); // silent: DEVICE_OFFLINE
    await post([report(SERIALS.acmeSwitch, now(), { events: [{ type: 'WAN_DOWN', observedAt: now(), details: { portNumber: 1 } }] })]);
    await post([report(SERIALS.acmeLabAp, now())]); // another network: not this endpoint's
    const got = await hook.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hook.received.map(alertOf).sort()).toEqual(['ALERT_DEVICE_OFFLINE', 'ALERT_DEVICE_ONLINE', 'ALERT_DEVICE_ONLINE', 'ALERT_WAN_DOWN']);

    const verifier = new Webhook(secret);
    for (const delivery of got) {
      expect(() => verifier.verify(delivery.body, delivery.headers)).not.toThrow();
      expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    const offline = JSON.parse(got.find((d) => alertOf(d) === 'ALERT_DEVICE_OFFLINE')?.body ?? '{}') as Record<string, Record<string, unknown>>;
    expect(offline.metadata).toEqual({ alert_name: 'ALERT_DEVICE_OFFLINE', network_name: 'HQ — Zürich', timestamp: expect.any(String) });
    expect(offline.data).toMatchObject({ networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch });

    const first = got[0] as ReceivedWebhook;
    expect(() => verifier.verify(first.body.replace('ALERT_', 'ALERT_X'), first.headers)).toThrow();
    expect(() => verifier.verify(first.body, { ...first.headers, 'webhook-id': 'msg_other' })).toThrow();
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('retries on the schedule with the same webhook-id: 500, 500, then 200 is three deliveries', async () => {
    const hook = await receiver();
    hook.answer({ status: 500 }, { status: 500 });
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'DEVICE_BOOT' }]);
    const sent = Date.parse(now());
    await post([report(SERIALS.acmeAp, now(), { events: [{ type: 'DEVICE_BOOT', observedAt: now(), details: { rebootReason: 'power' } }] })]);
    await hook.waitFor(1);
    let [delivery] = await deliveries(acme, created.id, (list) => list[0]?.log.length === 1);
    const retryAt = Date.parse(delivery?.nextAttemptAt ?? '');
    expect(retryAt - sent, JSON.stringify(delivery)).toBeGreaterThanOrEqual(5_000);
    expect(retryAt - sent).toBeLessThanOrEqual(5_500 + 1_000);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(hook.received).toHaveLength(1); // not due before its time

    clock.advance(6_000);
    await hook.waitFor(2);
    [delivery] = await deliveries(acme, created.id, (list) => list[0]?.log.length === 2);
    expect(Date.parse(delivery?.nextAttemptAt ?? '') - clock.now()).toBeGreaterThanOrEqual(5 * 60_000 - 1_000);
    clock.advance(5.5 * 60_000 + 1_000);
    await hook.waitFor(3);
    [delivery] = await deliveries(acme, created.id, (list) => list[0]?.state === 'delivered');
    expect(delivery?.log.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    expect(delivery?.log[2]?.response).toBe('ok');
    expect(new Set(hook.received.map((d) => d.headers['webhook-id']))).toEqual(new Set([delivery?.id]));
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('honours Retry-After, follows no redirect, and disables an endpoint that answers 410', async () => {
    const hook = await receiver();
    const target = await receiver();
    hook.answer({ status: 503, headers: { 'retry-after': '3600' } }, { status: 302, headers: { location: target.url } }, { status: 410 });
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'WAN_UP', networks: [IDS.acmeHq] }]);
    await post([report(SERIALS.acmeAp, now(), { events: [{ type: 'WAN_UP', observedAt: now(), details: { portNumber: 1 } }] })]);
    await hook.waitFor(1);
    let [delivery] = await deliveries(acme, created.id, (list) => list[0]?.log.length === 1);
    expect(delivery?.log[0]?.status).toBe(503);
    expect(Date.parse(delivery?.nextAttemptAt ?? '') - clock.now()).toBeGreaterThanOrEqual(3_600_000 - 1_000);
    clock.advance(3_600_000);
    await hook.waitFor(2);
    [delivery] = await deliveries(acme, created.id, (list) => list[0]?.log.length === 2);
    expect(delivery?.log[1]?.status).toBe(302);
    expect(target.received).toHaveLength(0);
    clock.advance(5.5 * 60_000);
    await hook.waitFor(3);
    [delivery] = await deliveries(acme, created.id, (list) => list[0]?.state === 'failed');
    expect(await services().webhooks.getEndpoint(acme, created.id)).toMatchObject({ enabled: false, disabledReason: 'GONE' });
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('sends every audit-log entry as AUDIT_LOG, never with a secret', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'AUDIT_LOG' }]);
    await services().networks.update(acme, { networkUUID: IDS.acmeEmpty, label: 'Annex 2' });
    const bodies = async () => hook.received.map((d) => JSON.parse(d.body) as { metadata: Record<string, unknown>; data: Record<string, unknown> });
    const deadline = Date.now() + 10_000;
    while (!(await bodies()).some((b) => b.data.action === 'network.update') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const update = (await bodies()).find((b) => b.data.action === 'network.update');
    expect(update?.metadata).toEqual({ alert_name: 'ALERT_AUDIT_LOG', network_name: null, timestamp: expect.any(String) });
    expect(update?.data).toMatchObject({ objectType: 'network', objectId: IDS.acmeEmpty, actor: { type: 'cli' }, after: { label: 'Annex 2' } });
    expect((await bodies()).filter((b) => b.data.action === 'webhook.create' && b.data.objectId === created.id)).toHaveLength(1);
    expect(JSON.stringify(hook.received)).not.toContain('whsec_');
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it("carries the change feed's cursor in AUDIT_LOG, DEVICE_ONLINE and DEVICE_OFFLINE: the receiver finds its change there and resumes from it", async () => {
    const standard = await receiver();
    const meter = await receiver();
    const rules = [{ alert: 'AUDIT_LOG' }, { alert: 'DEVICE_ONLINE' }, { alert: 'DEVICE_OFFLINE' }];
    const first = await services().webhooks.createEndpoint(acme, { label: 'standard', url: standard.url, rules });
    const second = await services().webhooks.createEndpoint(acme, { label: 'meter', url: meter.url, rules, payloadFormat: 'METER' });
    const apiKey = await app.createKey('acme', 'sync');
    const feed = async (after: string | null): Promise<{ changes: FeedChange[]; endCursor: string | null }> => {
      await settled(app);
      const res = await app.graphql(FEED_PAGE, { key: apiKey, variables: { after } });
      const page = (res.body as { data: { changes: { changes: FeedChange[]; endCursor: string | null; hasMore: boolean } } }).data.changes;
      expect(page.hasMore).toBe(false);
      return page;
    };
    const bodies = (hook: WebhookReceiver) => hook.received.map((d) => JSON.parse(d.body) as Body);
    /** The body of the first delivery to `hook` after its first `skip` that `match` picks, once it came. */
    const delivered = async (hook: WebhookReceiver, match: (body: Body) => boolean, skip = 0): Promise<Body> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = bodies(hook).slice(skip).find(match);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`never delivered: ${JSON.stringify(bodies(hook).map((b) => [b.metadata.alert_name, b.data.action, b.data.serialNumber, b.data.changeCursor]))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const onlineMatch = (b: Body) => b.metadata.alert_name === 'ALERT_DEVICE_ONLINE' && b.data.serialNumber === SERIALS.acmeSwitch;
    // earlier tests left devices silent past the offline window: mark them offline here, or the background check
    // could do it between the update and the read of the feed below, with two OFFLINEs after the update's cursor
    // (seen in CI); a check running in the background holds the lock, so this waits until none is left
    const cutoff = new Date(clock.now() - OFFLINE_AFTER_SECONDS * 1000).toISOString();
    const silentOnline = async () =>
      Number(
        (await app.server.store.selectRow(
          `SELECT count(*) AS n FROM hardware_devices WHERE coalesce(reported_online, is_connected_to_backend) AND last_seen_at < '${cutoff}'`,
          [],
        ))?.n,
      );
    for (let tries = 0; (await services().reports.checkOffline()) > 0 || (await silentOnline()) > 0; tries++) {
      if (tries > 200) throw new Error('devices silent past the offline window stayed online');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await post([report(SERIALS.acmeSwitch, now())]);
    // the receiver's copy is up to date here, once an ONLINE of this report came: dispatch waits for the cluster's
    // older transactions (another test's can hold it back), so it could otherwise arrive after `seen` below
    const onlines = await app.server.store.selectRow("SELECT count(*) AS n FROM events WHERE type = 'DEVICE_ONLINE'", []);
    if (Number(onlines?.n) > 0) await delivered(standard, onlineMatch);
    const before = (await feed(null)).endCursor;

    await services().networks.update(acme, { networkUUID: IDS.acmeEmpty, label: 'Annex 3' });
    const update = await delivered(standard, (b) => b.data.action === 'network.update' && (b.data.after as { label?: string }).label === 'Annex 3');
    const cursor = update.data.changeCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // the feed from where the receiver was has the same change at that cursor, and it is the last one
    const caughtUp = await feed(before);
    expect(caughtUp.changes.find((c) => c.cursor === cursor)).toEqual({ cursor, objectType: 'Network', objectUUID: IDS.acmeEmpty, kind: 'UPDATED' });
    expect(caughtUp.endCursor).toBe(cursor);
    const meterUpdate = await delivered(meter, (b) => b.data.action === 'network.update' && (b.data.after as { label?: string }).label === 'Annex 3');
    expect(meterUpdate.data.change_cursor).toBe(cursor);

    // the receiver misses what follows; from the delivered cursor the feed has all of it, and only it
    const seen = standard.received.length;
    clock.advance(200_000);
    await services().reports.checkOffline();
    await post([report(SERIALS.acmeSwitch, now())]);
    await services().vlans.update(acme, { vlanUUID: IDS.acmeVlan, name: 'Resumed' });
    const online = await delivered(standard, onlineMatch, seen);
    const rename = await delivered(standard, (b) => b.data.action === 'vlan.update' && (b.data.after as { name?: string }).name === 'Resumed');
    const resumed = await feed(cursor);
    expect(resumed.changes.map((c) => c.cursor)).not.toContain(cursor);
    expect(resumed.changes.find((c) => c.cursor === online.data.changeCursor)).toMatchObject({ objectType: 'HardwareDevice', objectUUID: SERIALS.acmeSwitch, kind: 'ONLINE' });
    expect(resumed.changes.at(-1)).toMatchObject({ cursor: rename.data.changeCursor, objectType: 'VLAN', objectUUID: IDS.acmeVlan, kind: 'UPDATED' });
    // every change after the cursor came with a delivery carrying its cursor, in both bodies, each an OFFLINE, the ONLINE or the rename
    const standardCursors = new Set(bodies(standard).map((b) => b.data.changeCursor));
    const meterCursors = new Set(bodies(meter).map((b) => b.data.change_cursor));
    for (const change of resumed.changes) {
      expect(standardCursors.has(change.cursor)).toBe(true);
      expect(meterCursors.has(change.cursor)).toBe(true);
    }
    expect(resumed.changes.filter((c) => c.kind !== 'OFFLINE').map((c) => c.kind)).toEqual(['ONLINE', 'UPDATED']);
    expect(resumed.changes.filter((c) => c.kind === 'OFFLINE').length).toBeGreaterThan(0);
    // an entry the feed does not list (a key made) carries null
    const keyMade = await delivered(standard, (b) => b.data.action === 'api_key.create');
    expect(keyMade.data).toHaveProperty('changeCursor', null);
    await services().webhooks.deleteEndpoint(acme, { endpointId: first.endpoint.id });
    await services().webhooks.deleteEndpoint(acme, { endpointId: second.endpoint.id });
  });

  it.runIf(kind === 'postgres')('holds back a delivery with a cursor while an older transaction runs, as the feed does, so its cursor is never ahead of a change', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'AUDIT_LOG' }]);
    const older = new pg.Client({ connectionString: app.database.url });
    await older.connect();
    try {
      // a transaction with an id below the write's, still running when the write commits
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      await services().networks.update(acme, { networkUUID: IDS.acmeEmpty, label: 'Held' });
      const held = () => hook.received.some((d) => d.body.includes('"label":"Held"'));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(held()).toBe(false);
      await older.query('COMMIT');
      const deadline = Date.now() + 10_000;
      while (!held() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(held()).toBe(true);
    } finally {
      await older.end();
    }
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('sends both signatures during a rotation grace period, and only the new one after', async () => {
    const hook = await receiver();
    const { endpoint: created, secret: old } = await endpoint(hook.url, [{ alert: 'WAN_UP', networks: [IDS.acmeEmpty] }]);
    const { secret: fresh } = await services().webhooks.rotateSecret(acme, { endpointId: created.id, graceSeconds: 600 });
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    const [during] = await hook.waitFor(1);
    expect(during?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(during?.body ?? '', during?.headers ?? {})).not.toThrow();
    expect(() => new Webhook(fresh).verify(during?.body ?? '', during?.headers ?? {})).not.toThrow();
    clock.advance(601_000);
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    const after = (await hook.waitFor(2))[1];
    expect(after?.headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh).verify(after?.body ?? '', after?.headers ?? {})).not.toThrow();
    expect(() => new Webhook(old).verify(after?.body ?? '', after?.headers ?? {})).toThrow();
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('replays one message, or every message since a time, with the same webhook-id', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'DEVICE_BOOT' }]);
    const test = await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await hook.waitFor(1);
    await deliveries(acme, created.id, (list) => list[0]?.state === 'delivered');
    expect(await services().webhooks.replay(acme, { messageId: test.id })).toEqual({ requeued: 1 });
    const [, again] = await hook.waitFor(2);
    expect(again?.headers['webhook-id']).toBe(test.id);
    expect(await services().webhooks.replay(acme, { since: new Date(clock.now() - 1_000).toISOString() })).toMatchObject({ requeued: expect.any(Number) });
    await hook.waitFor(3);
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('fires CLIENT_COUNT_ABOVE once per upward crossing of a network threshold', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'CLIENT_COUNT_ABOVE', networks: [IDS.acmeHq], threshold: 2 }]);
    const dispatcher = services().webhookWork.dispatcher;
    clock.advance(1_000);
    await post([report(SERIALS.acmeSwitch, now(), { clients: [wired('3c:22:fb:00:01:01'), wired('3c:22:fb:00:01:02'), wired('3c:22:fb:00:01:03')] })]);
    await dispatcher.checkClientCounts();
    clock.advance(1_000);
    await post([report(SERIALS.acmeSwitch, now(), { clients: [wired('3c:22:fb:00:01:01'), wired('3c:22:fb:00:01:02'), wired('3c:22:fb:00:01:03'), wired('3c:22:fb:00:01:04')] })]);
    await dispatcher.checkClientCounts();
    clock.advance(1_000);
    await post([report(SERIALS.acmeSwitch, now(), { clients: [] })]);
    await dispatcher.checkClientCounts();
    clock.advance(1_000);
    await post([report(SERIALS.acmeSwitch, now(), { clients: [wired('3c:22:fb:00:01:01'), wired('3c:22:fb:00:01:02'), wired('3c:22:fb:00:01:05')] })]);
    await dispatcher.checkClientCounts();
    const got = await hook.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hook.received).toHaveLength(2);
    expect(got.map((d) => (JSON.parse(d.body) as { data: unknown }).data)).toEqual([
      { networkUUID: IDS.acmeHq, clientCount: 3, threshold: 2 },
      { networkUUID: IDS.acmeHq, clientCount: 3, threshold: 2 },
    ]);
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('disables an endpoint that has failed for 5 days, and a person turning it on starts over', async () => {
    const hook = await receiver();
    hook.answer(...Array.from({ length: 20 }, () => ({ status: 500 })));
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'WAN_UP', networks: [IDS.acmeEmpty] }]);
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await hook.waitFor(1);
    const failing = await deliveries(acme, created.id, (list) => list[0]?.log.length === 1);
    expect((await services().webhooks.getEndpoint(acme, created.id)).failingSince).toBe(failing[0]?.log[0]?.attemptedAt);
    clock.advance(5 * 86_400_000 - 60_000);
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await deliveries(acme, created.id, (list) => list.every((d) => d.log.length > 0));
    expect((await services().webhooks.getEndpoint(acme, created.id)).enabled).toBe(true);
    clock.advance(120_000);
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await deliveries(acme, created.id, (list) => list.every((d) => d.log.length > 0));
    expect(await services().webhooks.getEndpoint(acme, created.id)).toMatchObject({ enabled: false, disabledReason: 'FAILING' });
    const seen = hook.received.length;
    await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(hook.received).toHaveLength(seen); // disabled: nothing goes out
    expect(await services().webhooks.updateEndpoint(acme, { endpointId: created.id, enabled: true })).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    await hook.waitFor(seen + 1);
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('keeps each company to its own endpoints, rules and deliveries', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'AUDIT_LOG' }]);
    const test = await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    const refused = { code: 'UNAUTHORIZED' };
    expect(await services().webhooks.listEndpoints(globex)).toEqual([]);
    expect(await services().webhooks.listDeliveries(globex)).toEqual([]);
    await expect(services().webhooks.getEndpoint(globex, created.id)).rejects.toMatchObject(refused);
    await expect(services().webhooks.updateEndpoint(globex, { endpointId: created.id, enabled: false })).rejects.toMatchObject(refused);
    await expect(services().webhooks.rotateSecret(globex, { endpointId: created.id })).rejects.toMatchObject(refused);
    await expect(services().webhooks.sendTestEvent(globex, { endpointId: created.id })).rejects.toMatchObject(refused);
    await expect(services().webhooks.replay(globex, { messageId: test.id })).rejects.toMatchObject(refused);
    await expect(services().webhooks.deleteEndpoint(globex, { endpointId: created.id })).rejects.toMatchObject(refused);
    await expect(services().webhooks.listDeliveries(globex, { endpointId: created.id })).rejects.toMatchObject(refused);
    // a rule cannot name another company's network
    await expect(endpoint(hook.url, [{ alert: 'DEVICE_OFFLINE', networks: [IDS.globexHq] }])).rejects.toMatchObject({ code: 'UNAUTHORIZED', details: { field: 'rules[0].networks[0]' } });
    await expect(services().webhooks.createEndpoint({ ...acme, scope: 'read' }, { label: 'x', url: hook.url, rules: [{ alert: 'AUDIT_LOG' }] })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await services().webhooks.getEndpoint(acme, created.id)).enabled).toBe(true);
    // every change is in the company's audit log, never with a secret
    const audit = await services().audit.list({ companySlug: 'acme' });
    const actions = audit.filter((entry) => entry.objectId === created.id).map((entry) => entry.action);
    expect(actions).toEqual(['webhook.create', 'webhook.test']);
    expect(JSON.stringify(audit)).not.toContain('whsec_');
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });

  it('deletes delivered and failed messages past EVENT_RETENTION_DAYS, never pending ones', async () => {
    const hook = await receiver();
    const { endpoint: created } = await endpoint(hook.url, [{ alert: 'WAN_UP', networks: [IDS.acmeEmpty] }]);
    const delivered = await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    await deliveries(acme, created.id, (list) => list[0]?.state === 'delivered');
    await services().webhooks.updateEndpoint(acme, { endpointId: created.id, enabled: false });
    const pending = await services().webhooks.sendTestEvent(acme, { endpointId: created.id });
    clock.advance(91 * 86_400_000);
    expect(await services().webhookWork.deliverer.expire(90)).toBeGreaterThan(0);
    const left = await services().webhooks.listDeliveries(acme, { endpointId: created.id });
    expect(left.map((d) => [d.id, d.state])).toEqual([[pending.id, 'pending']]);
    expect(left.some((d) => d.id === delivered.id)).toBe(false);
    await services().webhooks.deleteEndpoint(acme, { endpointId: created.id });
  });
});

describe.each(storeKinds())('webhook targets on %s without WEBHOOK_ALLOW_PRIVATE_TARGETS', (kind) => {
  let app: TestApp;
  let hook: WebhookReceiver;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    hook = await startWebhookReceiver();
  });
  afterAll(async () => {
    await app?.close();
    await hook?.close();
  });

  it('refuses loopback, private, link-local and metadata addresses, and URLs with credentials', async () => {
    const acme = await app.server.services.webhooks.cliCaller('acme');
    const create = (url: string) => app.server.services.webhooks.createEndpoint(acme, { label: 'x', url, rules: [{ alert: 'AUDIT_LOG' }] });
    for (const url of ['http://127.0.0.1:8080/x', 'http://10.1.2.3/', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://[fd00:ec2::254]/', 'http://[::ffff:192.168.0.1]/', 'http://0.0.0.0/']) {
      await expect(create(url), url).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    }
    await expect(create('http://user:secret@hooks.example.com/')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(create('ftp://hooks.example.com/')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('checks the address a name resolves to on every attempt, and logs the refusal', async () => {
    const acme = await app.server.services.webhooks.cliCaller('acme');
    // a name is accepted when created; it resolves to loopback when delivered
    const { endpoint } = await app.server.services.webhooks.createEndpoint(acme, { label: 'local', url: hook.url.replace('127.0.0.1', 'localhost'), rules: [{ alert: 'WAN_UP' }] });
    const sent = await app.server.services.webhooks.sendTestEvent(acme, { endpointId: endpoint.id });
    const deadline = Date.now() + 10_000;
    let log: DeliveryInfo['log'] = [];
    while (log.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = (await app.server.services.webhooks.listDeliveries(acme, { messageId: sent.id }))[0]?.log ?? [];
    }
    expect(log[0]).toMatchObject({ status: null, error: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback/) });
    expect(hook.received).toHaveLength(0);
  });
});

describe.each(storeKinds())('AUDIT_LOG dispatch on %s', (kind) => {
  let app: TestApp | undefined;
  afterAll(async () => app?.close());

  it('sends an endpoint no audit entry written before it was created, though dispatched after', async () => {
    // no background work: the entries wait undispatched until this test dispatches them; no test clock: the audit
    // log and the endpoints are then stamped by the same clock, as in a server
    app = await startTestApp(kind, { data: createFixture(), backgroundWork: false, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } });
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const { webhooks, networks, webhookWork } = app.server.services;
    const acme = await webhooks.cliCaller('acme');
    await networks.update(acme, { networkUUID: IDS.acmeEmpty, label: 'Before the endpoint' });
    await tick();
    const { endpoint: created } = await webhooks.createEndpoint(acme, { label: 'late', url: 'http://127.0.0.1:9/hook', rules: [{ alert: 'AUDIT_LOG' }] });
    await tick();
    await networks.update(acme, { networkUUID: IDS.acmeEmpty, label: 'After the endpoint' });
    // on PostgreSQL an entry is dispatched once every older transaction of the cluster has ended (its change is served):
    // another test's open transaction can hold one back for a moment, and dispatch would then take nothing yet
    await settled(app);
    while ((await webhookWork.dispatcher.dispatchAudit()) > 0);
    const heard = (await webhooks.listDeliveries(acme, { endpointId: created.id })).map((d) => (d.payload as { data: { action: string; after: { label?: string } | null } }).data);
    // its own creation (written with it) and the update after it; not the import nor the update before it
    expect(heard.map((entry) => [entry.action, entry.after?.label ?? null]).sort()).toEqual([
      ['network.update', 'After the endpoint'],
      ['webhook.create', 'late'],
    ]);
  });
});
