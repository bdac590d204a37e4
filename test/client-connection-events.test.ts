import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import { storeKinds } from './helpers/stores.js';

// Wireless clients' connection events (issue 32) over HTTP: posted in reports' clientConnectionEvents, read with
// wirelessClientConnectionEventsPage, and the eventType / eventTypes filter of the client metrics roots. The clock
// stands one hour after REPORT_EPOCH; the window is its first 10 minutes, [0 s, 600 s).
const NOW = REPORT_EPOCH + 3_600_000;
const A = 'aa:00:00:00:00:01';
const B = 'aa:00:00:00:00:02';

/** A wireless client sample with only a signal (dBm) and an SNR. */
const sample = (macAddress: string, signal: number) => ({ macAddress, isWireless: true, signal, snr: signal + 100 });

/**
 * The access point's reports (seconds after REPORT_EPOCH): A at 0, 120, 360, 420 s; B at 0, 120, 420 s. A connects
 * at 100 s (CONNECTED, DHCP_OK at 110 s) and leaves at 410 s; B's DHCP fails at 400 s.
 */
function reports(): Record<string, unknown>[] {
  return [
    report(SERIALS.acmeAp, at(0), { clients: [sample(A, -50), sample(B, -80)] }),
    report(SERIALS.acmeAp, at(120), {
      clients: [sample(A, -60), sample(B, -70)],
      clientConnectionEvents: [{ macAddress: A.toUpperCase(), events: [{ type: 'CONNECTED', observedAt: at(100) }, { type: 'DHCP_OK', observedAt: at(110), reason: null }] }],
    }),
    report(SERIALS.acmeAp, at(360), { clients: [sample(A, -40)] }),
    report(SERIALS.acmeAp, at(420), {
      clients: [sample(A, -40), sample(B, -70)],
      clientConnectionEvents: [
        { macAddress: B, events: [{ type: 'DHCP_FAILED', observedAt: at(400), reason: 'no DHCP offer' }] },
        { macAddress: A, events: [{ type: 'DISASSOCIATED', observedAt: at(410), reason: 'reason code 8' }] },
      ],
    }),
  ];
}

const WINDOW = { durationSeconds: 600, endTime: at(600) };
const EVENT = 'eventType generatedAt macAddress reason networkUUID accessPoint { UUID }';

/** An event as the API answers it, reported by the Acme access point. */
const event = (eventType: string, seconds: number, macAddress: string, reason: string | null = null) => ({
  eventType, generatedAt: at(seconds), macAddress, reason, networkUUID: IDS.acmeHq, accessPoint: { UUID: IDS.acmeAp },
});

describe.each(storeKinds())('client connection events on %s', (kind) => {
  let app: TestApp;
  let ingest: string;
  const query = async (document: string, variables?: Record<string, unknown>, company = 'acme') =>
    (await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${await app.createKey(company)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: document, variables, extensions: { cost: true } }),
    })).body;
  const page = async (args: string, company = 'acme') => query(`{ p: wirelessClientConnectionEventsPage(${args}) { total events { ${EVENT} } } }`, undefined, company);
  const byAP = async (filter: Record<string, unknown>) =>
    (await query(`query ($f: ClientMetricsTimeseriesFilterInput!) { r: wirelessClientMetricsByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${IDS.acmeAp}", filter: $f) { metadata { clientCount signal } values { timestamp clientCount signal } } }`, { f: filter })).data.r;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: createTestClock(NOW).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    ingest = await createScopedKey(app, 'ingest');
    expect((await postReports(app, ingest, reports())).body).toEqual({ accepted: 4, duplicates: 0, rejected: [] });
    // another company's access point reports A's MAC address with events of every kind in the same buckets
    const globex = await postReports(app, await createScopedKey(app, 'ingest', 'globex'), [
      report(SERIALS.globexAp, at(120), {
        clients: [sample(A, -10)],
        clientConnectionEvents: [{ macAddress: A, events: ['CONNECTED', 'DHCP_FAILED', 'DISASSOCIATED'].map((type) => ({ type, observedAt: at(100) })) }],
      }),
    ]);
    expect(globex.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("reads a network's connection events newest first, filtered and paged, priced by the page's limit", async () => {
    const all = await page(`networkUUID: "${IDS.acmeHq}", limit: 20`);
    expect(all.errors).toBeUndefined();
    expect(all.data.p).toEqual({
      total: 4,
      events: [event('DISASSOCIATED', 410, A, 'reason code 8'), event('DHCP_FAILED', 400, B, 'no DHCP offer'), event('DHCP_OK', 110, A), event('CONNECTED', 100, A)],
    });
    // priced for 20 events of 6 fields (accessPoint: 1 + its UUID); charged for the 4 it holds
    expect(all.extensions.cost).toMatchObject({ requested: 1 + 1 + 2 + 20 * 7, actual: 1 + 1 + 2 + 4 * 7 });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 1, offset: 1, typeFilter: [DHCP_OK, DHCP_FAILED]`)).data.p).toEqual({ total: 2, events: [event('DHCP_OK', 110, A)] });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5, clientMacAddressFilter: ["${B}"]`)).data.p).toEqual({ total: 1, events: [event('DHCP_FAILED', 400, B, 'no DHCP offer')] });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5, startTime: "${at(105)}", endTime: "${at(400)}"`)).data.p).toEqual({ total: 1, events: [event('DHCP_OK', 110, A)] });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5, apVirtualDeviceUUIDFilter: ["${IDS.acmeLabAp}"]`)).data.p).toEqual({ total: 0, events: [] });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5, apVirtualDeviceUUIDFilter: ["${IDS.acmeAp}"]`)).data.p.total).toBe(4);
  });

  it("answers another company's network exactly like a missing one, and refuses a bad page", async () => {
    const other = await page(`networkUUID: "${IDS.globexHq}", limit: 5`);
    const missing = await page('networkUUID: "99999999-9999-4999-8999-999999999999", limit: 5');
    expect(other.data).toEqual({ p: null });
    expect(other.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
    expect(other.errors).toEqual(missing.errors);
    // the other company sees its own event, not Acme's
    expect((await page(`networkUUID: "${IDS.globexHq}", limit: 5`, 'globex')).data.p.total).toBe(3);
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5`, 'globex')).errors).toEqual(missing.errors);
    for (const [args, argument] of [['limit: 0', 'limit'], ['limit: 101', 'limit'], ['limit: 5, offset: -1', 'offset']]) {
      const refused = await page(`networkUUID: "${IDS.acmeHq}", ${args}`);
      expect([refused.data, refused.errors[0].extensions.code, refused.errors[0].extensions.argument]).toEqual([{ p: null }, 'BAD_USER_INPUT', argument]);
    }
  });

  it('counts, from the raw samples, only the samples of clients with an event of the types on the access point in the same bucket', async () => {
    const step = { timeFilter: { ...WINDOW, stepSeconds: 120 } };
    // every sample: A -50 -60 -40 -40, B -80 -70 -70
    expect((await byAP(step)).metadata).toEqual({ clientCount: 2, signal: -410 / 7 });
    // CONNECTED at 100 s: A's bucket [0, 120) only (Globex's access point's CONNECTED for A counts nowhere here)
    expect(await byAP({ ...step, eventType: 'CONNECTED' })).toEqual({ metadata: { clientCount: 1, signal: -50 }, values: [{ timestamp: at(0), clientCount: 1, signal: -50 }] });
    // DHCP_OK at 110 s (A, [0, 120)) and DHCP_FAILED at 400 s (B, [360, 480): its sample at 420 s)
    expect(await byAP({ ...step, eventTypes: ['DHCP_OK', 'DHCP_FAILED'] })).toEqual({
      metadata: { clientCount: 2, signal: -60 },
      values: [{ timestamp: at(0), clientCount: 1, signal: -50 }, { timestamp: at(360), clientCount: 1, signal: -70 }],
    });
    // eventType and eventTypes together: any of them all
    expect((await byAP({ ...step, eventType: 'CONNECTED', eventTypes: ['DISASSOCIATED'] })).values).toEqual([
      { timestamp: at(0), clientCount: 1, signal: -50 },
      { timestamp: at(360), clientCount: 1, signal: -40 },
    ]);
    // an event outside the window counts for no bucket
    expect(await byAP({ timeFilter: { durationSeconds: 300, stepSeconds: 120, endTime: at(405) }, eventType: 'DHCP_FAILED' })).toEqual({ metadata: { clientCount: 0, signal: null }, values: [] });
    expect(await byAP({ ...step, eventType: 'ARP_FAILED' })).toEqual({ metadata: { clientCount: 0, signal: null }, values: [] });
  });

  it('filters the 5-minute rollups exactly: a rollup lies in one bucket of a step that is a multiple of 300 s', async () => {
    const step = { timeFilter: { ...WINDOW, stepSeconds: 300 } };
    // [0, 300): A's rollup of -50 and -60
    expect(await byAP({ ...step, eventType: 'CONNECTED' })).toEqual({ metadata: { clientCount: 1, signal: -55 }, values: [{ timestamp: at(0), clientCount: 1, signal: -55 }] });
    // [300, 600): A's rollup of -40 and -40 (DISASSOCIATED at 410 s), B's of -70 (DHCP_FAILED at 400 s)
    expect(await byAP({ ...step, eventTypes: ['DISASSOCIATED', 'DHCP_FAILED'] })).toEqual({ metadata: { clientCount: 2, signal: -50 }, values: [{ timestamp: at(300), clientCount: 2, signal: -50 }] });
    // one 600 s bucket: A's every sample (its CONNECTED), not B's
    expect((await byAP({ timeFilter: { ...WINDOW, stepSeconds: 600 }, eventType: 'CONNECTED' })).values).toEqual([{ timestamp: at(0), clientCount: 1, signal: -47.5 }]);
    const perClient = await query(`{ r: wirelessClientMetrics(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 300, endTime: "${at(600)}" }, eventType: DHCP_FAILED }) { macAddress response { metadata { clientCount signal } } } }`);
    expect(perClient.data.r).toEqual([{ macAddress: B, response: { metadata: { clientCount: 1, signal: -70 } } }]);
    const byClient = await query(`{ r: wirelessClientMetricsByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${B}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 300, endTime: "${at(600)}" }, eventTypes: [CONNECTED] }) { metadata { clientCount } } }`);
    expect(byClient.data.r).toEqual({ metadata: { clientCount: 0 } });
  });

  it("refuses a report's bad connection events naming the path, accepts the rest of the batch, and stores a duplicate once", async () => {
    const good = report(SERIALS.acmeAp, at(500), { clientConnectionEvents: [{ macAddress: B, events: [{ type: 'ARP_LATE', observedAt: at(490) }] }] });
    const bad = (clientConnectionEvents: unknown) => report(SERIALS.acmeAp, at(500), { clientConnectionEvents });
    const tooMany = Array.from({ length: 33 }, (_, i) => ({ type: 'CONNECTED', observedAt: at(i) }));
    const answer = await postReports(app, ingest, [
      bad([{ macAddress: A, events: [{ type: 'ROAMED', observedAt: at(1) }] }]),
      good,
      bad([{ macAddress: A, events: tooMany }]),
      bad([{ macAddress: A, events: [] }, { macAddress: A.toUpperCase(), events: [] }]),
      bad([{ macAddress: A, events: [{ type: 'CONNECTED', observedAt: new Date(NOW + 3_600_000).toISOString() }] }]),
      bad([{ macAddress: 'not a mac', events: [] }]),
      bad([{ macAddress: A, events: [{ type: 'FAILED', observedAt: at(1), reason: 'x'.repeat(256) }] }]),
    ]);
    expect(answer.body).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        { index: 0, code: 'BAD_USER_INPUT', path: 'reports[0].clientConnectionEvents[0].events[0].type', message: 'must be one of ARP_FAILED, ARP_LATE, CONNECTED, DHCP_FAILED, DHCP_OK, DISASSOCIATED, FAILED' },
        { index: 2, code: 'BAD_USER_INPUT', path: 'reports[2].clientConnectionEvents[0].events', message: 'holds 33 entries; at most 32 are allowed' },
        { index: 3, code: 'BAD_USER_INPUT', path: 'reports[3].clientConnectionEvents[1].macAddress', message: `repeats ${A}: each may appear once per report` },
        { index: 4, code: 'BAD_USER_INPUT', path: 'reports[4].clientConnectionEvents[0].events[0].observedAt', message: 'is more than 5 minutes in the future: check the sender\'s clock' },
        { index: 5, code: 'BAD_USER_INPUT', path: 'reports[5].clientConnectionEvents[0].macAddress', message: 'must be a MAC address like 0c:8d:db:00:00:01' },
        { index: 6, code: 'BAD_USER_INPUT', path: 'reports[6].clientConnectionEvents[0].events[0].reason', message: 'is longer than 255 characters' },
      ],
    });
    // the same report again, alone and twice in one batch: a duplicate, its event stored once
    expect((await postReports(app, ingest, [good, good])).body).toEqual({ accepted: 0, duplicates: 2, rejected: [] });
    const arp = await page(`networkUUID: "${IDS.acmeHq}", limit: 5, typeFilter: [ARP_LATE]`);
    expect(arp.data.p).toEqual({ total: 1, events: [event('ARP_LATE', 490, B)] });
    // a sender that knows nothing of connection events still reports as before
    expect((await postReports(app, ingest, [report(SERIALS.acmeAp, at(550), { clients: [sample(A, -40)] })])).body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect((await page(`networkUUID: "${IDS.acmeHq}", limit: 5`)).data.p.total).toBe(5);
  });

  it("lists an access point's latest connection events on its dashboard page, failures in red", async () => {
    await app.server.services.users.create({ companySlug: 'acme', email: 'wifi@acme.example', role: 'admin', password: 'correct horse battery' });
    const client = createDashboardClient(app);
    expect((await signIn(client, 'wifi@acme.example', 'correct horse battery')).status).toBe(303);
    const page = await client.get(`/networks/${IDS.acmeHq}/devices/${IDS.acmeAp}`);
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr data-connection-event="(\w+)">([\s\S]*?)<\/tr>/g)].map((m) => [m[1], m[2]?.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()]);
    // the ARP_LATE of the test before, then the four of the start
    expect(rows.map(([type]) => type)).toEqual(['ARP_LATE', 'DISASSOCIATED', 'DHCP_FAILED', 'DHCP_OK', 'CONNECTED']);
    expect(rows[2]?.[1]).toContain(`${B} no DHCP offer`);
    expect(page.text).toContain('<span class="text-danger strong">DHCP failed</span>');
    // a switch's page has no such section
    expect((await client.get(`/networks/${IDS.acmeHq}/devices/${IDS.acmeSwitch}`)).text).not.toContain('connection-events-table');
  });
});
