import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';
import { auditOf, createWriteKey, errorOf } from './helpers/writes.js';

// The webhook GraphQL over HTTP: endpoints, rules and the delivery log through the compiled read model, writes through the service.
const ENDPOINT_FIELDS = 'UUID label url isEnabled authorizationType disabledReason failingSince createdAt rules { alert networkUUIDs threshold }';
const DELIVERY_FIELDS = 'messageId endpointUUID alert state attemptCount payload lastAttempt { status outcome durationMs responseExcerpt } attempts { attemptedAt status }';
const CREATE = `mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { secret endpoint { ${ENDPOINT_FIELDS} } } }`;
const DELIVERIES = `query ($e: UUID) { webhookDeliveries(endpointUUID: $e) { ${DELIVERY_FIELDS} } }`;

describe.each(storeKinds())('webhook GraphQL on %s', (kind) => {
  let app: TestApp;
  let writeKey: string;
  let readKey: string;
  let globexKey: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } });
    writeKey = await createWriteKey(app);
    readKey = await app.createKey('acme', 'reader');
    globexKey = await createWriteKey(app, 'globex');
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  /** The requests the receiver got with this webhook-id, once there are `count` of them. */
  async function receivedWithId(id: string, count: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const matching = receiver.received.filter((r) => r.headers['webhook-id'] === id);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline) throw new Error(`${id} arrived ${matching.length} times, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The delivery log of an endpoint once `done` holds (the background task delivers on its own timer). */
  async function deliveriesUntil(endpointUUID: string, done: (list: JsonTree[]) => boolean) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await app.graphql(DELIVERIES, { key: readKey, variables: { e: endpointUUID } });
      const list = res.body.data.webhookDeliveries as JsonTree[];
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries never settled: ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('creates, lists, sends a signed test event and shows its delivery; every change is audited', async () => {
    const entries = (await auditOf(app)).length;
    const input = {
      label: 'ops',
      url: receiver.url,
      authorization: { type: 'BEARER', token: 't0ken' },
      rules: [{ alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeHq] }, { alert: 'CLIENT_COUNT_ABOVE', threshold: 40 }, { alert: 'AUDIT_LOG' }],
    };
    const created = await app.graphql(CREATE, { key: writeKey, variables: { i: input } });
    expect(created.body.errors).toBeUndefined();
    const { secret, endpoint } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ label: 'ops', url: receiver.url, isEnabled: true, authorizationType: 'BEARER', disabledReason: null, failingSince: null });
    expect(endpoint.rules).toEqual([
      { alert: 'AUDIT_LOG', networkUUIDs: null, threshold: null },
      { alert: 'CLIENT_COUNT_ABOVE', networkUUIDs: null, threshold: 40 },
      { alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeHq], threshold: null },
    ]);

    const listed = await app.graphql(`{ webhookEndpoints { ${ENDPOINT_FIELDS} } }`, { key: readKey });
    expect(listed.body).toEqual({ data: { webhookEndpoints: [endpoint] } });
    expect(listed.text).not.toContain(secret.slice(6));
    expect(listed.text).not.toContain('t0ken');

    const sent = await app.graphql(`mutation ($i: WebhookEndpointInput!) { sendWebhookTestEvent(input: $i) { delivery { messageId alert state } } }`, {
      key: writeKey,
      variables: { i: { endpointUUID: endpoint.UUID } },
    });
    const { messageId } = sent.body.data.sendWebhookTestEvent.delivery;
    expect(sent.body.data.sendWebhookTestEvent.delivery).toMatchObject({ alert: 'TEST', state: 'PENDING' });
    const [testHook] = await receivedWithId(messageId, 1);
    expect(testHook).toBeDefined();
    expect(testHook?.headers.authorization).toBe('Bearer t0ken');
    expect(() => new Webhook(secret).verify(testHook?.body ?? '', testHook?.headers ?? {})).not.toThrow();

    // the AUDIT_LOG rule queues the audit entries of these writes too: pick the test event by its webhook-id
    const isTest = (d: JsonTree) => d.messageId === messageId && d.state === 'DELIVERED';
    const delivery = (await deliveriesUntil(endpoint.UUID, (list) => list.some(isTest))).find(isTest);
    expect(delivery).toMatchObject({ messageId, endpointUUID: endpoint.UUID, alert: 'TEST', state: 'DELIVERED', attemptCount: 1 });
    expect(delivery).toMatchObject({ lastAttempt: { status: 200, outcome: 'SUCCESS', responseExcerpt: 'ok' } });
    expect(JSON.parse(delivery?.payload).metadata.alert_name).toBe('ALERT_TEST');

    const replayed = await app.graphql(`mutation ($i: ReplayWebhookMessagesInput!) { replayWebhookMessages(input: $i) { requeued } }`, {
      key: writeKey,
      variables: { i: { messageId } },
    });
    expect(replayed.body).toEqual({ data: { replayWebhookMessages: { requeued: 1 } } });
    const copies = await receivedWithId(messageId, 2);
    expect(copies[1]?.body).toBe(copies[0]?.body);

    const rotated = await app.graphql(
      `mutation ($i: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $i) { secret previousSecretValidUntil endpoint { UUID } } }`,
      { key: writeKey, variables: { i: { endpointUUID: endpoint.UUID, graceSeconds: 60 } } },
    );
    expect(rotated.body.data.rotateWebhookSecret.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.rotateWebhookSecret.secret).not.toBe(secret);

    const updated = await app.graphql(`mutation ($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { endpoint { label isEnabled rules { alert } } } }`, {
      key: writeKey,
      variables: { i: { endpointUUID: endpoint.UUID, label: 'ops 2', isEnabled: false, rules: [{ alert: 'WAN_DOWN' }] } },
    });
    expect(updated.body.data.updateWebhookEndpoint.endpoint).toEqual({ label: 'ops 2', isEnabled: false, rules: [{ alert: 'WAN_DOWN' }] });

    const deleted = await app.graphql(`mutation ($i: WebhookEndpointInput!) { deleteWebhookEndpoint(input: $i) { deletedEndpointUUID } }`, {
      key: writeKey,
      variables: { i: { endpointUUID: endpoint.UUID } },
    });
    expect(deleted.body).toEqual({ data: { deleteWebhookEndpoint: { deletedEndpointUUID: endpoint.UUID } } });
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: readKey })).body).toEqual({ data: { webhookEndpoints: [] } });

    const actions = (await auditOf(app)).slice(entries).map((entry) => entry.action);
    expect(actions).toEqual(['webhook.create', 'webhook.test', 'webhook.replay', 'webhook.rotate_secret', 'webhook.update', 'webhook.delete']);
  });

  it('refuses every webhook mutation with a read key: 403 FORBIDDEN', async () => {
    const before = (await app.graphql('{ webhookEndpoints { UUID } }', { key: readKey })).body;
    const entries = (await auditOf(app)).length;
    const res = await app.graphql(CREATE, { key: readKey, variables: { i: { label: 'x', url: receiver.url, rules: [{ alert: 'WAN_UP' }] } } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ errors: [{ message: expect.stringContaining('read_write'), extensions: { code: 'FORBIDDEN' } }], data: null });
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: readKey })).body).toEqual(before);
    expect(await auditOf(app)).toHaveLength(entries);
  });

  it("answers another company's endpoint exactly like a missing one, in reads and writes", async () => {
    const created = await app.graphql(CREATE, { key: globexKey, variables: { i: { label: 'globex', url: receiver.url, rules: [{ alert: 'WAN_UP' }] } } });
    const foreign = created.body.data.createWebhookEndpoint.endpoint.UUID as string;
    const missing = '00000000-0000-4000-8000-000000000000';
    const answers = [];
    for (const uuid of [foreign, missing]) {
      const read = await app.graphql(DELIVERIES, { key: writeKey, variables: { e: uuid } });
      const write = await app.graphql(`mutation ($i: WebhookEndpointInput!) { sendWebhookTestEvent(input: $i) { delivery { messageId } } }`, {
        key: writeKey,
        variables: { i: { endpointUUID: uuid } },
      });
      answers.push({ read: [read.status, read.body.data, errorOf(read)[1]], write: [write.status, write.body.data, ...errorOf(write).slice(1)] });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]?.read).toEqual([200, { webhookDeliveries: null }, 'UNAUTHORIZED']);
    expect(answers[0]?.write.slice(1)).toEqual([{ sendWebhookTestEvent: null }, 'UNAUTHORIZED', 'input.endpointUUID']);
    // a rule naming a network the company does not have is refused naming it as the input does
    const refused = await app.graphql(CREATE, { key: writeKey, variables: { i: { label: 'x', url: receiver.url, rules: [{ alert: 'WAN_UP', networkUUIDs: [missing] }] } } });
    expect(errorOf(refused).slice(1)).toEqual(['UNAUTHORIZED', 'input.rules[0].networkUUIDs[0]']);
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: writeKey })).body.data.webhookEndpoints).not.toContainEqual({ UUID: foreign });
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: globexKey })).body.data.webhookEndpoints).toEqual([{ UUID: foreign }]);
  });

  it('checks the limit before the database', async () => {
    const res = await app.graphql('{ webhookDeliveries(limit: 5000) { messageId } }', { key: readKey });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'limit' });
  });
});
