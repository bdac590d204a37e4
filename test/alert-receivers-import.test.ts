import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoDataset } from '../src/tools/demo/dataset.js';
import type { ImportDocument } from '../src/platform/import/import.schema.js';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';
import { createWriteKey } from './helpers/writes.js';

// Alert receivers in the import format and in the demo: imported, answered over HTTP, exported back; without SMTP an EMAIL target gets nothing queued.
const RECEIVERS = 'query ($c: UUID!) { alertReceiversForCompany(companyUUID: $c) { UUID label targets { UUID type emailAddress isEnabled } rules { alert networkUUIDs } } }';
const DELIVERIES = 'query ($e: UUID) { webhookDeliveries(endpointUUID: $e) { messageId alert } }';
const RECEIVER_UUID = '00000000-0000-4000-8000-0000000000e2';

describe.each(storeKinds())('alert receivers in the demo and the import format on %s', (kind) => {
  let app: TestApp;
  let hook: WebhookReceiver;
  const demo = generateDemoDataset();
  const acme = demo.companies[0];
  const companyUuid = '00000000-0000-4000-8000-0000000000de';

  beforeAll(async () => {
    hook = await startWebhookReceiver();
    // the demo as `npm start` loads it (with a fixed company UUID to query by), and no SMTP server
    app = await startTestApp(kind, { data: { companies: [{ ...(acme as ImportDocument['companies'][number]), uuid: companyUuid }] }, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } });
  });
  afterAll(async () => {
    await app?.close();
    await hook?.close();
  });

  it('answers the demo receiver; without SMTP its EMAIL target gets no message while a webhook gets the same alert, and the state is said once', async () => {
    const readKey = await app.createKey('acme', 'reader');
    const res = await app.graphql(RECEIVERS, { key: readKey, variables: { c: companyUuid } });
    expect(res.body.errors).toBeUndefined();
    const [receiver] = res.body.data.alertReceiversForCompany as JsonTree[];
    expect(receiver).toMatchObject({
      label: 'NOC on-call',
      targets: [{ type: 'EMAIL', emailAddress: 'noc@example.com', isEnabled: true }],
      rules: [{ alert: 'DEVICE_OFFLINE', networkUUIDs: null }, { alert: 'WAN_DOWN', networkUUIDs: null }, { alert: 'WAN_UP', networkUUIDs: null }],
    });
    expect(await app.server.services.webhookWork.dispatcher.unsentEmailTargets()).toBe(1);

    // a webhook with the same alert: once it has the WAN_DOWN, the dispatch that skipped the email target is done
    const writeKey = await createWriteKey(app);
    const created = await app.graphql('mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { UUID } } }', {
      key: writeKey,
      variables: { i: { label: 'witness', url: hook.url, rules: [{ alert: 'WAN_DOWN' }] } },
    });
    expect(created.body.errors).toBeUndefined();
    const serial = acme?.networks[0]?.virtualDevices.find((d) => d.hardwareDevice !== null)?.hardwareDevice?.serialNumber as string;
    const at = new Date().toISOString();
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), [report(serial, at, { events: [{ type: 'WAN_DOWN', observedAt: at }] })]);
    expect(posted.body).toMatchObject({ accepted: 1 });
    const deadline = Date.now() + 10_000;
    while (!hook.received.some((r) => r.body.includes('ALERT_WAN_DOWN'))) {
      if (Date.now() > deadline) throw new Error('the witness webhook never got the WAN_DOWN');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const target = (receiver?.targets as JsonTree[])[0]?.UUID as string;
    const log = await app.graphql(DELIVERIES, { key: readKey, variables: { e: target } });
    expect(log.body).toEqual({ data: { webhookDeliveries: [] } });
  });

  it('imports receivers with EMAIL targets and rules, answers them over HTTP and exports them unchanged', async () => {
    const network = '00000000-0000-4000-8000-0000000000e1';
    const document = {
      companies: [{
        name: 'Initech', slug: 'initech', uuid: '00000000-0000-4000-8000-0000000000e0',
        networks: [{ UUID: network, label: 'Main', slug: 'main', isActive: true, virtualDevices: [], vlans: [], ssids: [], clients: [] }],
        alertReceivers: [
          { UUID: RECEIVER_UUID, label: 'Ops', targets: [{ type: 'EMAIL', emailAddress: 'ops@example.com' }, { type: 'EMAIL', emailAddress: 'lead@example.com' }], rules: [{ alert: 'DEVICE_BOOT', networkUUIDs: [network] }, { alert: 'AUDIT_LOG' }] },
        ],
      }],
    };
    await app.server.services.imports.import(document);
    const key = await app.createKey('initech', 'reader');
    const res = await app.graphql(RECEIVERS, { key, variables: { c: '00000000-0000-4000-8000-0000000000e0' } });
    expect(res.body.data.alertReceiversForCompany).toEqual([
      {
        UUID: RECEIVER_UUID, label: 'Ops',
        targets: [{ UUID: expect.any(String), type: 'EMAIL', emailAddress: 'ops@example.com', isEnabled: true }, { UUID: expect.any(String), type: 'EMAIL', emailAddress: 'lead@example.com', isEnabled: true }],
        rules: [{ alert: 'AUDIT_LOG', networkUUIDs: null }, { alert: 'DEVICE_BOOT', networkUUIDs: [network] }],
      },
    ]);
    const exported = await app.server.services.imports.export('initech');
    expect(exported.companies[0]?.alertReceivers).toEqual(document.companies[0]?.alertReceivers);
    // another company's key reads it like a missing one
    const other = await app.graphql('query ($u: UUID!) { alertReceiver(UUID: $u) { label } }', { key: await app.createKey('acme', 'other reader'), variables: { u: RECEIVER_UUID } });
    expect(other.body.data).toEqual({ alertReceiver: null });
  });

  it('refuses WEBHOOK and SLACK targets, bad addresses, unknown alerts and networks, naming each path; nothing is written', async () => {
    const document = {
      companies: [{
        name: 'Bad', slug: 'bad-receivers',
        networks: [],
        alertReceivers: [
          { label: 'A', targets: [{ type: 'SLACK', slackWebhookURL: 'https://hooks.slack.com/services/T/B/X' }, { type: 'EMAIL', emailAddress: 'not an address' }], rules: [{ alert: 'CLIENT_COUNT_ABOVE' }] },
          { label: 'A', targets: [], rules: [{ alert: 'WAN_UP', networkUUIDs: ['00000000-0000-4000-8000-0000000000f9'] }] },
        ],
      }],
    };
    const refused = await app.server.services.imports.import(document).then(() => undefined, (error: { details: { problems: { path: string; message: string }[] } }) => error.details.problems);
    expect(refused?.map((p) => p.path).sort()).toEqual([
      '$.companies[0].alertReceivers[0].targets[0].type',
      '$.companies[0].alertReceivers[0].targets[1].emailAddress',
      '$.companies[0].alertReceivers[0].rules[0].alert',
      '$.companies[0].alertReceivers[1].label',
      '$.companies[0].alertReceivers[1].targets',
      '$.companies[0].alertReceivers[1].rules[0].networkUUIDs[0]',
    ].sort());
    expect(refused?.find((p) => p.path.endsWith('targets[0].type'))?.message).toContain('EMAIL targets only');
    expect(JSON.stringify(refused)).not.toContain('hooks.slack.com/services');
    await expect(app.server.services.imports.export('bad-receivers')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
