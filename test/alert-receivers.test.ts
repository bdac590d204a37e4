import { spawn } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { outputOf, runNetgraph } from './helpers/cli.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { startSmtpReceiver } from './helpers/smtp-receiver.js';
import type { SmtpReceiver } from './helpers/smtp-receiver.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';
import { auditOf, createWriteKey, errorOf } from './helpers/writes.js';

// Alert receivers over HTTP: CRUD and scoping, and an offline device delivered to a METER webhook endpoint, an email and a Slack message.
const ACME = '00000000-0000-4000-8000-00000000000a';
const MISSING = '99999999-9999-4999-8999-999999999999';
const RECEIVER_FIELDS = 'UUID companyUUID label createdAt updatedAt targets { UUID type webhookEndpointUUID emailAddress isEnabled disabledReason } rules { alert networkUUIDs }';
const CREATE = `mutation ($i: CreateAlertReceiverInput!) { createAlertReceiver(input: $i) { receiver { ${RECEIVER_FIELDS} } } }`;
const UPDATE = `mutation ($i: UpdateAlertReceiverInput!) { updateAlertReceiver(input: $i) { receiver { ${RECEIVER_FIELDS} } } }`;
const CREATE_ENDPOINT = 'mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { secret endpoint { UUID payloadFormat } } }';
const DELIVERIES = 'query ($e: UUID) { webhookDeliveries(endpointUUID: $e) { messageId endpointUUID alert state payload attempts { status outcome error } } }';

/**
 * What a receiver written for Meter's alerts does, in Python: compares
 * X-Meter-Signature with hmac.new(secret.encode(), body, sha256).hexdigest()
 * and parses the body; prints the alert name and the device, or exits 1.
 */
const METER_PYTHON_RECEIVER = `
import hashlib, hmac, json, sys
secret, signature = sys.argv[1], sys.argv[2]
body = sys.stdin.buffer.read()
expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
if not hmac.compare_digest(expected, signature):
    sys.exit(1)
alert = json.loads(body)
print(alert["metadata"]["alert_name"], "|", alert["metadata"]["network_name"], "|", alert["data"].get("device_name"), "|", alert["data"].get("serial_number"))
`;

async function verifyAsMeter(secret: string, delivery: ReceivedWebhook): Promise<{ code: number | null; stdout: string }> {
  const child = spawn('python3', ['-c', METER_PYTHON_RECEIVER, secret, delivery.headers['x-meter-signature'] ?? '']);
  child.stdin.end(delivery.body);
  return outputOf(child);
}

describe.each(storeKinds())('alert receivers on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let smtp: SmtpReceiver;
  let writeKey: string;
  let readKey: string;
  let globexKey: string;
  const receivers: WebhookReceiver[] = [];
  const now = () => new Date(clock.now()).toISOString();
  const receiver = async () => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };
  const createEndpoint = async (url: string, payloadFormat: string, rules: JsonTree[], key = writeKey) => {
    const res = await app.graphql(CREATE_ENDPOINT, { key, variables: { i: { label: 'meter hook', url, payloadFormat, rules } } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.createWebhookEndpoint as { secret: string; endpoint: { UUID: string; payloadFormat: string } };
  };
  /** The delivery log of one endpoint or target once `done` holds (the background tasks deliver on their own timers). */
  const deliveriesUntil = async (uuid: string, done: (list: JsonTree[]) => boolean) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await app.graphql(DELIVERIES, { key: readKey, variables: { e: uuid } });
      const list = res.body.data.webhookDeliveries as JsonTree[];
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries never settled: ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    smtp = await startSmtpReceiver();
    app = await startTestApp(kind, {
      data: createFixture(),
      clock: clock.now,
      env: { DEVICE_OFFLINE_AFTER_SECONDS: '60', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', SMTP_URL: smtp.url, SMTP_FROM: 'netgraph <alerts@netgraph.test>' },
    });
    writeKey = await createWriteKey(app);
    readKey = await app.createKey('acme', 'reader');
    globexKey = await createWriteKey(app, 'globex');
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
    for (const r of receivers) await r.close();
  });

  it('creates, reads, updates and deletes a receiver with exact answers, audited, scoped to the company', async () => {
    const slack = await receiver();
    const { endpoint } = await createEndpoint('https://hooks.example.com/meter', 'METER', [{ alert: 'WAN_UP', networkUUIDs: [IDS.acmeEmpty] }]);
    expect(endpoint.payloadFormat).toBe('METER');
    const toggled = await app.graphql(`mutation { updateWebhookEndpoint(input: { endpointUUID: "${endpoint.UUID}", payloadFormat: STANDARD }) { endpoint { payloadFormat } } }`, { key: writeKey });
    expect(toggled.body).toEqual({ data: { updateWebhookEndpoint: { endpoint: { payloadFormat: 'STANDARD' } } } });
    const back = await app.graphql('mutation ($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { endpoint { payloadFormat } } }', { key: writeKey, variables: { i: { endpointUUID: endpoint.UUID, payloadFormat: 'METER' } } });
    expect(back.body.data.updateWebhookEndpoint.endpoint.payloadFormat).toBe('METER');
    const entries = (await auditOf(app)).length;
    const input = {
      label: 'NOC',
      targets: [
        { type: 'WEBHOOK', webhookEndpointUUID: endpoint.UUID },
        { type: 'EMAIL', emailAddress: 'noc@example.com' },
        { type: 'SLACK', slackWebhookURL: `${slack.url}/T000/B000/s3cr3t` },
      ],
      rules: [{ alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeLab, IDS.acmeHq] }, { alert: 'DEVICE_BOOT' }],
    };
    const created = await app.graphql(CREATE, { key: writeKey, variables: { i: input } });
    expect(created.body.errors).toBeUndefined();
    const made = created.body.data.createAlertReceiver.receiver as JsonTree;
    const [webhook, email, slackTarget] = made.targets as JsonTree[];
    expect(made).toEqual({
      UUID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyUUID: ACME,
      label: 'NOC',
      createdAt: now(),
      updatedAt: now(),
      targets: [
        { UUID: expect.any(String), type: 'WEBHOOK', webhookEndpointUUID: endpoint.UUID, emailAddress: null, isEnabled: true, disabledReason: null },
        { UUID: expect.any(String), type: 'EMAIL', webhookEndpointUUID: null, emailAddress: 'noc@example.com', isEnabled: true, disabledReason: null },
        { UUID: expect.any(String), type: 'SLACK', webhookEndpointUUID: null, emailAddress: null, isEnabled: true, disabledReason: null },
      ],
      rules: [
        { alert: 'DEVICE_BOOT', networkUUIDs: null },
        { alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeHq, IDS.acmeLab].sort() },
      ],
    });
    expect(new Set([webhook?.UUID, email?.UUID, slackTarget?.UUID]).size).toBe(3);
    expect(created.text).not.toContain('s3cr3t');

    // the SDK's selections, literally
    const one = await app.graphql(`{ alertReceiver(UUID: "${made.UUID}") { UUID companyUUID label createdAt updatedAt targets { UUID type } } }`, { key: readKey });
    expect(one.body).toEqual({ data: { alertReceiver: { UUID: made.UUID, companyUUID: ACME, label: 'NOC', createdAt: now(), updatedAt: now(), targets: (made.targets as JsonTree[]).map((t) => ({ UUID: t.UUID, type: t.type })) } } });
    const listed = await app.graphql(`{ alertReceiversForCompany(companyUUID: "${ACME}") { UUID label createdAt targets { UUID type } } }`, { key: readKey });
    expect(listed.body.data.alertReceiversForCompany).toEqual([{ UUID: made.UUID, label: 'NOC', createdAt: now(), targets: one.body.data.alertReceiver.targets }]);
    expect(listed.text).not.toContain('s3cr3t');
    // the email and Slack channels are no webhook endpoints
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: readKey })).body.data.webhookEndpoints).toEqual([{ UUID: endpoint.UUID }]);

    // another company's ids answer like missing ones
    for (const [query, key] of [
      [`{ alertReceiver(UUID: "${made.UUID}") { UUID } }`, globexKey],
      [`{ alertReceiver(UUID: "${MISSING}") { UUID } }`, readKey],
      [`{ alertReceiversForCompany(companyUUID: "${ACME}") { UUID } }`, globexKey],
      [`{ alertReceiversForCompany(companyUUID: "${MISSING}") { UUID } }`, readKey],
    ] as const) {
      const res = await app.graphql(query, { key });
      expect(res.body.data).toEqual({ [query.slice(2, query.indexOf('('))]: null });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHORIZED');
    }
    expect(errorOf(await app.graphql('{ alertReceiver(UUID: "nope") { UUID } }', { key: readKey }))[1]).toBe('BAD_USER_INPUT');
    // a target's delivery channel is no webhook endpoint: the webhook mutations do not reach it
    const channel = await app.graphql(`mutation { deleteWebhookEndpoint(input: { endpointUUID: "${email?.UUID}" }) { deletedEndpointUUID } }`, { key: writeKey });
    expect(errorOf(channel)).toEqual([['deleteWebhookEndpoint'], 'UNAUTHORIZED', 'input.endpointUUID']);
    const foreign = await app.graphql(UPDATE, { key: globexKey, variables: { i: { receiverUUID: made.UUID, label: 'mine' } } });
    expect(errorOf(foreign)).toEqual([['updateAlertReceiver'], 'UNAUTHORIZED', 'input.receiverUUID']);

    // update: a new label, the EMAIL target kept (same UUID), the Slack one dropped, a webhook target of globex's refused
    clock.advance(1_000);
    const updated = await app.graphql(UPDATE, {
      key: writeKey,
      variables: { i: { receiverUUID: made.UUID, label: 'NOC 2', targets: [{ type: 'EMAIL', emailAddress: 'noc@example.com' }, { type: 'WEBHOOK', webhookEndpointUUID: endpoint.UUID }] } },
    });
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateAlertReceiver.receiver).toEqual({ ...made, label: 'NOC 2', updatedAt: now(), targets: [webhook, email] });

    const deleted = await app.graphql(`mutation { deleteAlertReceiver(input: { receiverUUID: "${made.UUID}" }) { deletedReceiverUUID } }`, { key: writeKey });
    expect(deleted.body).toEqual({ data: { deleteAlertReceiver: { deletedReceiverUUID: made.UUID } } });
    expect((await app.graphql(`{ alertReceiver(UUID: "${made.UUID}") { UUID } }`, { key: readKey })).body.data.alertReceiver).toBeNull();
    expect((await app.graphql('{ webhookEndpoints { UUID } }', { key: readKey })).body.data.webhookEndpoints).toEqual([{ UUID: endpoint.UUID }]);
    const audit = (await auditOf(app)).slice(entries);
    expect(audit.map((e) => [e.action, e.objectId])).toEqual([
      ['alert_receiver.create', made.UUID],
      ['alert_receiver.update', made.UUID],
      ['alert_receiver.delete', made.UUID],
    ]);
    expect(JSON.stringify(audit)).not.toContain('s3cr3t');
  });

  it('refuses bad targets and rules, naming the field', async () => {
    const globexHook = await createEndpoint('https://hooks.example.com/globex', 'STANDARD', [{ alert: 'WAN_UP' }], globexKey);
    const base = { label: 'x', rules: [{ alert: 'DEVICE_OFFLINE' }] };
    const refusals: [JsonTree, string, string][] = [
      [{ ...base, targets: [{ type: 'SALESFORCE' }] }, 'BAD_USER_INPUT', 'targets[0].type'],
      [{ ...base, targets: [{ type: 'WEBHOOK', webhookEndpointUUID: globexHook.endpoint.UUID }] }, 'UNAUTHORIZED', 'targets[0].webhookEndpointUUID'],
      [{ ...base, targets: [{ type: 'EMAIL', emailAddress: 'not an address' }] }, 'BAD_USER_INPUT', 'targets[0].emailAddress'],
      [{ ...base, targets: [{ type: 'EMAIL', emailAddress: 'a@example.com', slackWebhookURL: 'https://hooks.slack.com/x' }] }, 'BAD_USER_INPUT', 'targets[0].slackWebhookURL'],
      [{ ...base, targets: [{ type: 'SLACK', slackWebhookURL: 'ftp://secret-token@example.com' }] }, 'BAD_USER_INPUT', 'targets[0].slackWebhookURL'],
      [{ ...base, targets: [{ type: 'EMAIL', emailAddress: 'a@example.com' }, { type: 'EMAIL', emailAddress: 'A@example.com' }] }, 'BAD_USER_INPUT', 'targets[1]'],
      [{ ...base, targets: [] }, 'BAD_USER_INPUT', 'targets'],
      [{ label: 'x', targets: [{ type: 'EMAIL', emailAddress: 'a@example.com' }], rules: [{ alert: 'CLIENT_COUNT_ABOVE' }] }, 'BAD_USER_INPUT', 'rules[0].alert'],
      [{ label: 'x', targets: [{ type: 'EMAIL', emailAddress: 'a@example.com' }], rules: [{ alert: 'WAN_UP', networkUUIDs: [IDS.globexHq] }] }, 'UNAUTHORIZED', 'rules[0].networkUUIDs[0]'],
    ];
    for (const [input, code, field] of refusals) {
      const res = await app.graphql(CREATE, { key: writeKey, variables: { i: input } });
      expect(errorOf(res), JSON.stringify(input)).toEqual([['createAlertReceiver'], code, `input.${field}`]);
      expect(res.text).not.toContain('secret-token');
    }
    expect(errorOf(await app.graphql(CREATE, { key: writeKey, variables: { i: { ...base, targets: [{ type: 'PAGER' }] } } }))[1]).toBe('BAD_USER_INPUT');
    // the enum as a literal
    const literal = await app.graphql('mutation { createAlertReceiver(input: { label: "x", targets: [{ type: SALESFORCE }], rules: [{ alert: DEVICE_OFFLINE }] }) { receiver { UUID } } }', { key: writeKey });
    expect(errorOf(literal)).toEqual([['createAlertReceiver'], 'BAD_USER_INPUT', 'input.targets[0].type']);
    expect(literal.body.errors[0].message).toContain('SALESFORCE cannot be created');
    const readOnly = await app.graphql(CREATE, { key: readKey, variables: { i: { ...base, targets: [{ type: 'EMAIL', emailAddress: 'a@example.com' }] } } });
    expect(readOnly.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await app.graphql(`{ alertReceiversForCompany(companyUUID: "${ACME}") { UUID } }`, { key: readKey })).body.data.alertReceiversForCompany).toEqual([]);
  });

  it('delivers an offline device to a METER webhook endpoint, an email and a Slack message, with retries, log and replay', async () => {
    const hook = await receiver();
    const slack = await receiver();
    slack.answer({ status: 500 });
    smtp.refuse(451);
    // the endpoint's own rule and the receiver's both match: one message, not two
    const { secret, endpoint } = await createEndpoint(hook.url, 'METER', [{ alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeLab] }]);
    const created = await app.graphql(CREATE, {
      key: writeKey,
      variables: {
        i: {
          label: 'Lab on-call',
          targets: [
            { type: 'WEBHOOK', webhookEndpointUUID: endpoint.UUID },
            { type: 'EMAIL', emailAddress: 'oncall@example.com' },
            { type: 'SLACK', slackWebhookURL: `${slack.url}/services/T1/B1/xyz` },
          ],
          rules: [{ alert: 'DEVICE_OFFLINE', networkUUIDs: [IDS.acmeLab] }],
        },
      },
    });
    expect(created.body.errors).toBeUndefined();
    const [, emailTarget, slackTarget] = created.body.data.createAlertReceiver.receiver.targets as JsonTree[];

    expect((await postReports(app, await createScopedKey(app, 'ingest'), [report(SERIALS.acmeLabAp, now())])).body).toMatchObject({ rejected: [] });
    clock.advance(200_000);
    expect(await app.server.services.reports.checkOffline()).toBeGreaterThan(0);

    // (a) Meter's body, verified and parsed as Meter's Python receivers do, and Standard Webhooks too
    const [delivery] = await hook.waitFor(1);
    const meter = await verifyAsMeter(secret, delivery as ReceivedWebhook);
    expect(meter).toMatchObject({ code: 0, stdout: `Device offline | Lab | AP 1 | ${SERIALS.acmeLabAp}\n` });
    expect((await verifyAsMeter(secret, { ...(delivery as ReceivedWebhook), body: `${delivery?.body} ` })).code).toBe(1);
    expect(() => new Webhook(secret).verify(delivery?.body ?? '', delivery?.headers ?? {})).not.toThrow();
    const body = JSON.parse(delivery?.body ?? '{}') as JsonTree;
    expect(body.metadata).toEqual({ alert_name: 'Device offline', network_name: 'Lab', timestamp: expect.any(String) });
    expect(body.data).toEqual({
      device_name: 'AP 1', device_type: 'access_point', serial_number: SERIALS.acmeLabAp, virtual_device_uuid: IDS.acmeLabAp, network_uuid: IDS.acmeLab,
      event_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      change_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });

    // (b) the email: refused once with 451, accepted on the retry
    const emailLog = await deliveriesUntil(emailTarget?.UUID, (list) => list[0]?.attempts.length === 1);
    expect(emailLog).toMatchObject([{ endpointUUID: emailTarget?.UUID, alert: 'DEVICE_OFFLINE', state: 'PENDING', attempts: [{ status: 451, outcome: 'FAILURE' }] }]);
    // (c) Slack: 500 once
    await deliveriesUntil(slackTarget?.UUID, (list) => list[0]?.attempts.length === 1);
    clock.advance(6_500);
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).toEqual(['oncall@example.com']);
    expect(mail?.from).toBe('alerts@netgraph.test');
    expect(mail?.subject).toBe('[netgraph] Device offline: Lab');
    expect(mail?.text).toContain('device_name: AP 1');
    expect(mail?.text).toContain(`serial_number: ${SERIALS.acmeLabAp}`);
    expect(mail?.headers['x-netgraph-message-id']).toBe(emailLog[0]?.messageId);
    const [, slackMessage] = await slack.waitFor(2);
    expect(slackMessage?.headers['content-type']).toBe('application/json');
    expect(slackMessage?.headers['webhook-signature']).toBeUndefined();
    expect(slackMessage?.path).toBe('/hook/services/T1/B1/xyz');
    const slackBody = JSON.parse(slackMessage?.body ?? '{}') as JsonTree;
    expect(slackBody.text).toBe('Device offline: Lab');
    expect(slackBody.blocks.map((b: JsonTree) => b.type)).toEqual(['header', 'section', 'context']);
    expect(slackBody.blocks[0].text).toEqual({ type: 'plain_text', text: 'Device offline' });
    expect(slackBody.blocks[1].text.text).toContain(`serial_number: ${SERIALS.acmeLabAp}`);

    const emailDone = await deliveriesUntil(emailTarget?.UUID, (list) => list[0]?.state === 'DELIVERED');
    expect(emailDone[0]?.attempts.map((a: JsonTree) => [a.status, a.outcome])).toEqual([[451, 'FAILURE'], [250, 'SUCCESS']]);
    const slackDone = await deliveriesUntil(slackTarget?.UUID, (list) => list[0]?.state === 'DELIVERED');
    expect(slackDone[0]?.attempts.map((a: JsonTree) => a.status)).toEqual([500, 200]);
    expect(JSON.parse(slackDone[0]?.payload).metadata.alert_name).toBe('Device offline');
    expect(hook.received).toHaveLength(1);

    // replay: the same message id again, through each channel
    for (const messageId of [emailDone[0]?.messageId, slackDone[0]?.messageId]) {
      const res = await app.graphql('mutation ($m: String) { replayWebhookMessages(input: { messageId: $m }) { requeued } }', { key: writeKey, variables: { m: messageId } });
      expect(res.body).toEqual({ data: { replayWebhookMessages: { requeued: 1 } } });
    }
    const [, again] = await smtp.waitFor(2);
    expect(again?.headers['x-netgraph-message-id']).toBe(emailDone[0]?.messageId);
    expect((await slack.waitFor(3))[2]?.body).toBe(slackMessage?.body);
    const log = await app.graphql('{ webhookDeliveries { endpointUUID } }', { key: readKey });
    expect(log.text).not.toContain('xyz');
  });

  it('takes the body format from the command line too', async () => {
    const env = { DATABASE_URL: app.database.url, LOG_LEVEL: 'silent' };
    const args = ['webhooks', 'create', '--company', 'acme', '--label', 'cli', '--url', 'https://hooks.example.com/cli', '--alerts', 'WAN_UP', '--json'];
    const created = await runNetgraph([...args, '--payload-format', 'meter'], env);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const listed = await app.graphql('{ webhookEndpoints { UUID payloadFormat } }', { key: readKey });
    expect(listed.body.data.webhookEndpoints).toContainEqual({ UUID: id, payloadFormat: 'METER' });
    const refused = await runNetgraph([...args, '--payload-format', 'xml'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('payloadFormat');
  });

  it("sends audit entries and test events in Meter's shape; X-Meter-Signature is the newest secret's during a rotation", async () => {
    const hook = await receiver();
    const { secret, endpoint } = await createEndpoint(hook.url, 'METER', [{ alert: 'AUDIT_LOG' }]);
    /** The first message received that `holds`. */
    const arrived = async (holds: (body: JsonTree) => boolean): Promise<ReceivedWebhook> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = hook.received.find((r) => holds(JSON.parse(r.body) as JsonTree));
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no such message arrived: ${JSON.stringify(hook.received.map((r) => r.body))}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    // its own creation is an audit entry; an earlier test's entry may come too: this app's webhooks run on a test clock
    // that stamps the endpoint days before the audit log's (real) times, so it hears every entry not yet dispatched
    const audit = await arrived((body) => body.data?.object_id === endpoint.UUID);
    expect(await verifyAsMeter(secret, audit)).toMatchObject({ code: 0, stdout: 'Audit log | None | None | None\n' });
    const entry = JSON.parse(audit.body) as JsonTree;
    expect(entry.metadata).toEqual({ alert_name: 'Audit log', network_name: null, timestamp: expect.any(String) });
    expect(entry.data).toMatchObject({ action: 'webhook.create', object_type: 'webhook', object_id: endpoint.UUID, actor: { type: 'api_key', label: 'writer' } });
    expect(Object.keys(entry.data).sort()).toEqual(['action', 'actor', 'after', 'audit_entry_uuid', 'before', 'change_cursor', 'object_id', 'object_type']);

    const rotated = await app.graphql(`mutation { rotateWebhookSecret(input: { endpointUUID: "${endpoint.UUID}", graceSeconds: 600 }) { secret } }`, { key: writeKey });
    const fresh = rotated.body.data.rotateWebhookSecret.secret as string;
    await app.graphql(`mutation { sendWebhookTestEvent(input: { endpointUUID: "${endpoint.UUID}" }) { delivery { messageId } } }`, { key: writeKey });
    const test = await arrived((body) => body.metadata.alert_name === 'Test alert');
    expect(JSON.parse(test.body).data).toEqual({ endpoint_uuid: endpoint.UUID, message: expect.any(String) });
    expect(test.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(secret).verify(test.body, test.headers)).not.toThrow();
    const byNewest = await verifyAsMeter(fresh, test);
    expect(byNewest.code).toBe(0);
    expect((await verifyAsMeter(secret, test)).code).toBe(1);
  });
});
