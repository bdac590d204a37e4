import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';
import { createWriteKey } from './helpers/writes.js';

// Retries on the configured schedule, over GraphQL to real receivers on 127.0.0.1.
const CREATE = `mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { UUID } } }`;
const SEND_TEST = `mutation ($i: WebhookEndpointInput!) { sendWebhookTestEvent(input: $i) { delivery { messageId } } }`;
const DELIVERIES = `query ($e: UUID) { webhookDeliveries(endpointUUID: $e) { messageId state attemptCount nextAttemptAt attempts { attemptedAt status durationMs } } }`;

describe.each(storeKinds())('webhook retries on %s', (kind) => {
  let app: TestApp;
  let writeKey: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', WEBHOOK_RETRY_SCHEDULE: '1s,1s' };
    app = await startTestApp(kind, { data: createFixture(), env });
    writeKey = await createWriteKey(app);
  });
  afterAll(async () => {
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
});
