import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';
import { createWriteKey } from './helpers/writes.js';

// Retries on the configured schedule, and a replay of a message mid-attempt, over GraphQL to real receivers on 127.0.0.1,
// with two servers delivering from one database.
const CREATE = `mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { UUID } } }`;
const SEND_TEST = `mutation ($i: WebhookEndpointInput!) { sendWebhookTestEvent(input: $i) { delivery { messageId } } }`;
const REPLAY = `mutation ($i: ReplayWebhookMessagesInput!) { replayWebhookMessages(input: $i) { requeued } }`;
const DELIVERIES = `query ($e: UUID) { webhookDeliveries(endpointUUID: $e) { messageId state attemptCount nextAttemptAt attempts { attemptedAt status durationMs } } }`;

describe.each(storeKinds())('webhook retries and replay on %s', (kind) => {
  let app: TestApp;
  // a second server on the same database, as in a deployment of several: its delivery loop is free while
  // the first one's waits for a held answer (one process runs one batch at a time)
  let peer: TestApp;
  let writeKey: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', WEBHOOK_RETRY_SCHEDULE: '1s,1s' };
    app = await startTestApp(kind, { data: createFixture(), env });
    peer = await startTestApp(kind, { database: app.database, env });
    writeKey = await createWriteKey(app);
  });
  afterAll(async () => {
    await peer?.server.close();
    await app?.close();
    for (const receiver of receivers) await receiver.close();
  });

  /** A receiver and an endpoint delivering to it; test events only (the rule never fires here). */
  async function endpointWithReceiver(): Promise<{ receiver: WebhookReceiver; endpointUUID: string }> {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const created = await app.graphql(CREATE, { key: writeKey, variables: { i: { label: 'retries', url: receiver.url, rules: [{ alert: 'WAN_UP' }] } } });
    expect(created.body.errors).toBeUndefined();
    return { receiver, endpointUUID: created.body.data.createWebhookEndpoint.endpoint.UUID as string };
  }

  async function sendTestEvent(endpointUUID: string): Promise<string> {
    const sent = await app.graphql(SEND_TEST, { key: writeKey, variables: { i: { endpointUUID } } });
    return sent.body.data.sendWebhookTestEvent.delivery.messageId as string;
  }

  /** The message's delivery as the log shows it, once `done` holds (the background task delivers on its own timer). */
  async function deliveryWhen(endpointUUID: string, done: (delivery: JsonTree) => boolean): Promise<JsonTree> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await app.graphql(DELIVERIES, { key: writeKey, variables: { e: endpointUUID } });
      const [delivery] = res.body.data.webhookDeliveries as JsonTree[];
      if (delivery !== undefined && done(delivery)) return delivery;
      if (Date.now() > deadline) throw new Error(`delivery log never settled: ${JSON.stringify(delivery)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Requests the receiver got for a message, once there are `count`. */
  async function receivedWithId(receiver: WebhookReceiver, id: string, count: number): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const matching = receiver.received.filter((r) => r.headers['webhook-id'] === id);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline) throw new Error(`${id} arrived ${matching.length} times, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('retries on WEBHOOK_RETRY_SCHEDULE: with 1s,1s a failing message is attempted 3 times, about a second apart, then failed', async () => {
    const { receiver, endpointUUID } = await endpointWithReceiver();
    receiver.answer({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const messageId = await sendTestEvent(endpointUUID);
    const delivery = await deliveryWhen(endpointUUID, (d) => d.state === 'FAILED');
    expect(delivery).toMatchObject({ messageId, attemptCount: 3, nextAttemptAt: null });
    expect(delivery.attempts.map((a: JsonTree) => a.status)).toEqual([500, 500, 500]);
    const times = (delivery.attempts as JsonTree[]).map((a) => Date.parse(a.attemptedAt));
    for (const [i, gap] of times.slice(1).map((time, j) => time - (times[j] as number)).entries()) {
      // the wait is 1 s plus up to 10% jitter; the default schedule would wait 5 s, then 5 min
      expect(gap, `wait before retry ${i + 1}`).toBeGreaterThanOrEqual(1_000);
      expect(gap, `wait before retry ${i + 1}`).toBeLessThan(4_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(3);
  });

  it('never runs a second attempt beside one in flight: a replay during an attempt delivers once that attempt has its answer', async () => {
    const { receiver, endpointUUID } = await endpointWithReceiver();
    receiver.hold();
    const messageId = await sendTestEvent(endpointUUID);
    await receivedWithId(receiver, messageId, 1);

    const replayed = await app.graphql(REPLAY, { key: writeKey, variables: { i: { messageId } } });
    expect(replayed.body).toEqual({ data: { replayWebhookMessages: { requeued: 1 } } });
    // queued for a fresh round, while the attempt in flight keeps its claim
    expect(await deliveryWhen(endpointUUID, () => true)).toMatchObject({ state: 'PENDING', attemptCount: 0, attempts: [] });
    // several rounds of the delivery loop (every 250 ms) while the receiver holds its answer: none may start another attempt
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === messageId)).toHaveLength(1);

    receiver.release();
    const [first, second] = await receivedWithId(receiver, messageId, 2);
    const delivery = await deliveryWhen(endpointUUID, (d) => d.state === 'DELIVERED');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === messageId)).toHaveLength(2);
    // the receiver saw the replay's attempt only after it had answered the first
    expect(first?.answeredAt).toBeDefined();
    expect(second?.receivedAt).toBeGreaterThanOrEqual(first?.answeredAt ?? Number.POSITIVE_INFINITY);
    // and the log shows both attempts, one after the other: the replay's round has one attempt so far
    expect(delivery).toMatchObject({ messageId, attemptCount: 1, nextAttemptAt: null });
    const [a, b] = delivery.attempts as JsonTree[];
    expect([a?.status, b?.status]).toEqual([200, 200]);
    expect(Date.parse(b?.attemptedAt)).toBeGreaterThanOrEqual(Date.parse(a?.attemptedAt) + a?.durationMs);
  });

  it("replays a message whose attempt in flight fails: the replay's round follows that attempt, one after the other", async () => {
    const { receiver, endpointUUID } = await endpointWithReceiver();
    receiver.hold();
    receiver.answer({ status: 500 });
    const messageId = await sendTestEvent(endpointUUID);
    await receivedWithId(receiver, messageId, 1);
    expect((await app.graphql(REPLAY, { key: writeKey, variables: { i: { messageId } } })).body.data.replayWebhookMessages).toEqual({ requeued: 1 });
    receiver.release();
    const delivery = await deliveryWhen(endpointUUID, (d) => d.state === 'DELIVERED');
    expect(delivery.attempts.map((a: JsonTree) => a.status)).toEqual([500, 200]);
    expect(delivery.attemptCount).toBe(1);
    const [first, second] = await receivedWithId(receiver, messageId, 2);
    expect(second?.receivedAt).toBeGreaterThanOrEqual(first?.answeredAt ?? Number.POSITIVE_INFINITY);
  });
});
