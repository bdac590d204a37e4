import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// IDS/IPS events, rogue access points and honeypot SSIDs (issue 32): reported as `idsDetections` and `foreignBSSIDs`
// (docs/reports.md), answered by idsEvents, ipsEvents, rogueAccessPointsObservedOnNetwork and
// honeypotSSIDsObservedOnNetwork by the rules of docs/schema.md.

const MISSING = '99999999-9999-4999-8999-999999999999';
// the MSP dashboard's own selections (Francisco-1088/meterMspDashboard, multi_company_server.py)
const MSP_EVENTS = (root: string, network: string, extra = '') =>
  `{ ${root}(networkUUID: "${network}", limit: 50, durationSeconds: 86400${extra}) { events { observedAt srcIP dstIP protocol direction srcPort dstPort virtualDevice { UUID label } } total } }`;
const TF = (duration = 86400, endTime?: string) =>
  `{ timeFilter: { durationSeconds: ${duration}, stepSeconds: 300${endTime === undefined ? '' : `, endTime: "${endTime}"`} } }`;
const ROGUES = (networks: string[], filter = TF(), page = 'limit: 50, offset: 0') =>
  `{ rogueAPs: rogueAccessPointsObservedOnNetwork(networkUUIDs: ${JSON.stringify(networks)}, filter: ${filter}, ${page}) { networkUUID BSSID ssid wiredMACAddress wiredPortNumber firstObservedAt lastObservedAt observers { ssid rssi channel observedAt virtualDevice { UUID } } } }`;
const HONEYPOTS = (networks: string[], filter = TF(), page = 'limit: 50, offset: 0') =>
  `{ honeypots: honeypotSSIDsObservedOnNetwork(networkUUIDs: ${JSON.stringify(networks)}, filter: ${filter}, ${page}) { networkUUID ssid BSSID firstObservedAt lastObservedAt observers { ssid rssi observedAt } } }`;

const SWITCH = { UUID: IDS.acmeSwitch, label: 'Core switch\twith tab' };
const AP_MAC = '0c:8d:db:00:01:00';
const OWN_BSSID = '0c:8d:db:00:01:10';
const ROGUE_WIRED = 'a4:5e:60:11:22:30';
const ROGUE = 'a4:5e:60:11:22:35';
const HONEYPOT = 'de:ad:be:ef:00:01';

const detection = (seconds: number, extra: Record<string, unknown> = {}) => ({
  observedAt: at(seconds),
  srcIP: '198.51.100.7',
  dstIP: '10.0.10.23',
  protocol: 'tcp',
  srcPort: 51234,
  dstPort: 22,
  direction: 'RX',
  signature: 'ET SCAN SSH brute force',
  ...extra,
});
const heard = (BSSID: string, ssid: string | null, rssi: number, channel: number | null = 6) => ({ BSSID, ssid, rssi, channel });
const macEntry = (macAddress: string, portNumber: number) => ({ macAddress, vlanID: 10, portNumber });

describe.each(storeKinds())('security observations on %s', (kind) => {
  let app: TestApp;
  let ingestKey: string;
  const clock = createTestClock(REPORT_EPOCH);
  const setClock = (ms: number) => clock.advance(ms - clock.now());
  const post = async (reports: Record<string, unknown>[], key = ingestKey) => {
    const response = await postReports(app, key, reports);
    expect(response.status).toBe(200);
    return response.body as { accepted: number; rejected: { index: number; code: string; path: string; message: string }[] };
  };
  let writeKey: string;
  const data = async (query: string) => {
    const res = await app.graphql(query, { key: writeKey });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  /** The errors of an answer as [code, argument]. */
  const refusal = async (query: string) => {
    const res = await app.graphql(query);
    return res.body.errors?.map((e: { extensions: Record<string, unknown> }) => [e.extensions.code, e.extensions.argument ?? null]);
  };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, backgroundWork: false });
    ingestKey = await createScopedKey(app, 'ingest');
    writeKey = await createScopedKey(app, 'read_write');
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('IDS and IPS events', () => {
    beforeAll(async () => {
      // no IDS/IPS configuration: IDS events
      expect(await post([report(SERIALS.acmeSwitch, at(-5), { idsDetections: [detection(-10), detection(-5, { srcIP: '2001:DB8::9', protocol: 'ICMP', srcPort: null, dstPort: null, direction: 'TX', signature: null })] })])).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
      await data(`mutation { setIDSIPSConfig(input: { networkUUID: "${IDS.acmeHq}", mode: IPS }) { idsIPSConfig { mode } } }`);
      expect((await post([report(SERIALS.acmeSwitch, at(60), { idsDetections: [detection(60, { dstPort: 443 })] })])).accepted).toBe(1);
      // mode IDS again: the detections already kept stay what they were
      await data(`mutation { setIDSIPSConfig(input: { networkUUID: "${IDS.acmeHq}", mode: IDS }) { idsIPSConfig { mode } } }`);
      setClock(REPORT_EPOCH + 120_000);
    });

    it('answers the detections reported without IPS as IDS events and those reported under IPS as IPS events, newest first', async () => {
      expect(await data(MSP_EVENTS('idsEvents', IDS.acmeHq))).toEqual({
        idsEvents: {
          events: [
            { observedAt: at(-5), srcIP: '2001:db8::9', dstIP: '10.0.10.23', protocol: 'ICMP', direction: 'TX', srcPort: null, dstPort: null, virtualDevice: SWITCH },
            { observedAt: at(-10), srcIP: '198.51.100.7', dstIP: '10.0.10.23', protocol: 'TCP', direction: 'RX', srcPort: 51234, dstPort: 22, virtualDevice: SWITCH },
          ],
          total: 2,
        },
      });
      expect(await data(MSP_EVENTS('ipsEvents', IDS.acmeHq))).toEqual({
        ipsEvents: {
          events: [{ observedAt: at(60), srcIP: '198.51.100.7', dstIP: '10.0.10.23', protocol: 'TCP', direction: 'RX', srcPort: 51234, dstPort: 443, virtualDevice: SWITCH }],
          total: 1,
        },
      });
      const page = await data(`{ idsEvents(networkUUID: "${IDS.acmeHq}", limit: 1, offset: 1) { total events { observedAt signature mode networkUUID } } }`);
      expect(page).toEqual({ idsEvents: { total: 2, events: [{ observedAt: at(-10), signature: 'ET SCAN SSH brute force', mode: 'IDS', networkUUID: IDS.acmeHq }] } });
    });

    it('counts only the last durationSeconds, and nothing of another network', async () => {
      // now is at(120): the window of 100 s starts at at(20), inclusive
      expect(await data(`{ idsEvents(networkUUID: "${IDS.acmeHq}", durationSeconds: 100) { total events { observedAt } } }`)).toEqual({ idsEvents: { total: 0, events: [] } });
      expect(await data(`{ ipsEvents(networkUUID: "${IDS.acmeHq}", durationSeconds: 100) { total events { observedAt mode } } }`)).toEqual({ ipsEvents: { total: 1, events: [{ observedAt: at(60), mode: 'IPS' }] } });
      expect(await data(`{ ipsEvents(networkUUID: "${IDS.acmeHq}", durationSeconds: 60) { total } }`)).toEqual({ ipsEvents: { total: 1 } });
      expect(await data(`{ ipsEvents(networkUUID: "${IDS.acmeHq}", durationSeconds: 59) { total } }`)).toEqual({ ipsEvents: { total: 0 } });
      expect(await data(MSP_EVENTS('idsEvents', IDS.acmeLab))).toEqual({ idsEvents: { events: [], total: 0 } });
    });

    it("answers another company's network exactly like a missing one", async () => {
      for (const root of ['idsEvents', 'ipsEvents']) {
        const theirs = await app.graphql(MSP_EVENTS(root, IDS.globexHq));
        const missing = await app.graphql(MSP_EVENTS(root, MISSING));
        expect(theirs.body.data).toEqual({ [root]: null });
        expect(theirs.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
        expect(JSON.stringify(theirs.body).replaceAll(IDS.globexHq, 'X')).toBe(JSON.stringify(missing.body).replaceAll(MISSING, 'X'));
      }
    });

    it('refuses a page or a window it cannot answer, naming the argument', async () => {
      const q = (args: string) => `{ idsEvents(networkUUID: "${IDS.acmeHq}", ${args}) { total } }`;
      expect(await refusal(q('limit: 0'))).toEqual([['BAD_USER_INPUT', 'limit']]);
      expect(await refusal(q('limit: 501'))).toEqual([['BAD_USER_INPUT', 'limit']]);
      expect(await refusal(q('offset: -1'))).toEqual([['BAD_USER_INPUT', 'offset']]);
      expect(await refusal(q('durationSeconds: 0'))).toEqual([['BAD_USER_INPUT', 'durationSeconds']]);
      // raw retention: 48 hours
      expect(await refusal(q('durationSeconds: 172801'))).toEqual([['BAD_USER_INPUT', 'durationSeconds']]);
      expect(await refusal(`{ ipsEvents(networkUUID: "${IDS.acmeHq}", limit: "5") { total } }`)).toEqual([['GRAPHQL_VALIDATION_FAILED', null]]);
    });

    it('prices a page at its limit and charges the events it held', async () => {
      // requested: idsEvents 1 + total 1 + events (2 + 10 × 2) = 24; actual: 1 + 1 + 2 + 2 × 2 = 8
      const priced = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await app.createKey('acme', 'cost')}` },
        body: JSON.stringify({ query: `{ idsEvents(networkUUID: "${IDS.acmeHq}", limit: 10) { total events { observedAt srcIP } } }`, extensions: { cost: true } }),
      });
      expect(priced.body.extensions.cost).toMatchObject({ requested: 24, actual: 8 });
    });
  });

  describe('rogue access points and honeypot SSIDs', () => {
    const T0 = 1000;
    beforeAll(async () => {
      setClock(REPORT_EPOCH + T0 * 1000);
      const first = await post([
        // the switch learned the AP's own MAC on port 1 and the rogue's wired MAC on port 12
        report(SERIALS.acmeSwitch, at(T0 - 10), { macTable: [macEntry(AP_MAC, 1), macEntry(ROGUE_WIRED, 12), macEntry('3c:22:fb:00:00:01', 3)] }),
        report(SERIALS.acmeAp, at(T0), {
          macAddress: AP_MAC,
          radios: [{ BSSID: OWN_BSSID, radioBand: 'BAND_5G', ssid: 'Acme-Corp' }],
          foreignBSSIDs: [
            heard(ROGUE.toUpperCase(), 'FreeWiFi', -60),
            heard(HONEYPOT, 'Acme-Corp', -70, 36),
            // a neighbour: neither on the wire nor imitating
            heard('de:ad:be:ef:00:02', 'Neighbor', -80),
            // the network's own BSSID, heard like a foreign one: never rogue nor honeypot
            heard(OWN_BSSID, 'Acme-Corp', -40),
            // next to the AP's own wired MAC: the network's own device, not a rogue
            heard('0c:8d:db:00:01:05', null, -50, null),
          ],
        }),
      ]);
      expect(first).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
      setClock(REPORT_EPOCH + (T0 + 60) * 1000);
      expect((await post([report(SERIALS.acmeAp, at(T0 + 60), { foreignBSSIDs: [heard(ROGUE, 'FreeWiFi-2', -55, 11)] })])).accepted).toBe(1);
    });

    const rogue = {
      networkUUID: IDS.acmeHq,
      BSSID: ROGUE,
      ssid: 'FreeWiFi-2',
      wiredMACAddress: ROGUE_WIRED,
      wiredPortNumber: 12,
      firstObservedAt: at(T0),
      lastObservedAt: at(T0 + 60),
      observers: [{ ssid: 'FreeWiFi-2', rssi: -55, channel: 11, observedAt: at(T0 + 60), virtualDevice: { UUID: IDS.acmeAp } }],
    };
    const honeypot = {
      networkUUID: IDS.acmeHq,
      ssid: 'Acme-Corp',
      BSSID: HONEYPOT,
      firstObservedAt: at(T0),
      lastObservedAt: at(T0),
      observers: [{ ssid: 'Acme-Corp', rssi: -70, observedAt: at(T0) }],
    };

    it('answers the foreign BSSID on the wire as a rogue, and the one broadcasting an SSID of the network as a honeypot', async () => {
      // the window ends now, at(T0 + 60), exclusive: an end a second later holds the second scan
      const end = at(T0 + 61);
      expect(await data(ROGUES([IDS.acmeHq], TF(86400, end)))).toEqual({ rogueAPs: [rogue] });
      expect(await data(HONEYPOTS([IDS.acmeHq]))).toEqual({ honeypots: [honeypot] });
      // the MSP dashboard's selection, with another network of the company beside
      expect(await data(`{ r: rogueAccessPointsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}", "${IDS.acmeLab}"], filter: ${TF(86400, end)}, limit: 50, offset: 0) { networkUUID observers { ssid rssi observedAt } } }`)).toEqual({
        r: [{ networkUUID: IDS.acmeHq, observers: [{ ssid: 'FreeWiFi-2', rssi: -55, observedAt: at(T0 + 60) }] }],
      });
      expect(await data(HONEYPOTS([IDS.acmeLab]))).toEqual({ honeypots: [] });
    });

    it('keeps to the window and the page', async () => {
      // [at(T0 + 31), at(T0 + 61)): only the second scan, which heard the rogue and not the honeypot
      expect(await data(ROGUES([IDS.acmeHq], TF(30, at(T0 + 61))))).toEqual({ rogueAPs: [{ ...rogue, firstObservedAt: at(T0 + 60) }] });
      expect(await data(HONEYPOTS([IDS.acmeHq], TF(30, at(T0 + 61))))).toEqual({ honeypots: [] });
      expect(await data(ROGUES([IDS.acmeHq], TF(86400, at(T0 + 61)), 'limit: 1, offset: 1'))).toEqual({ rogueAPs: [] });
      expect(await data(HONEYPOTS([IDS.acmeHq], TF(86400), 'limit: 1'))).toEqual({ honeypots: [honeypot] });
    });

    it('lets a rogue go when its MAC address leaves the wire, and a honeypot when the network drops the SSID it imitates', async () => {
      setClock(REPORT_EPOCH + (T0 + 90) * 1000);
      expect((await post([report(SERIALS.acmeSwitch, at(T0 + 90), { macTable: [macEntry(AP_MAC, 1)] })])).accepted).toBe(1);
      // the last day still holds the time it was heard on the wire (from T0 - 10 to T0 + 90: the MAC tables' history)
      expect(await data(ROGUES([IDS.acmeHq]))).toEqual({ rogueAPs: [rogue] });
      // heard again off the wire: a window from when it left lists it no more
      setClock(REPORT_EPOCH + (T0 + 100) * 1000);
      expect((await post([report(SERIALS.acmeAp, at(T0 + 100), { foreignBSSIDs: [heard(ROGUE, 'FreeWiFi-2', -55, 11)] })])).accepted).toBe(1);
      expect(await data(ROGUES([IDS.acmeHq], TF(10, at(T0 + 101))))).toEqual({ rogueAPs: [] });
      const corp = await data(`{ ssidsForNetwork(networkUUID: "${IDS.acmeHq}") { UUID ssid } }`);
      const corpUUID = corp.ssidsForNetwork.find((s: { ssid: string }) => s.ssid === 'Acme-Corp').UUID;
      await data(`mutation { updateSSID(input: { ssidUUID: "${corpUUID}", ssid: "Acme-Staff" }) { ssid { ssid } } }`);
      expect(await data(HONEYPOTS([IDS.acmeHq]))).toEqual({ honeypots: [] });
      await data(`mutation { updateSSID(input: { ssidUUID: "${corpUUID}", ssid: "Acme-Corp" }) { ssid { ssid } } }`);
      expect(await data(HONEYPOTS([IDS.acmeHq]))).toEqual({ honeypots: [honeypot] });
      setClock(REPORT_EPOCH + (T0 + 120) * 1000);
      expect((await post([report(SERIALS.acmeSwitch, at(T0 + 120), { macTable: [macEntry(AP_MAC, 1), macEntry(ROGUE_WIRED, 12)] })])).accepted).toBe(1);
    });

    it("answers when any network is another company's exactly like a missing one", async () => {
      for (const query of [ROGUES, HONEYPOTS]) {
        const theirs = await app.graphql(query([IDS.acmeHq, IDS.globexHq]));
        const missing = await app.graphql(query([IDS.acmeHq, MISSING]));
        expect(Object.values(theirs.body.data)).toEqual([null]);
        expect(theirs.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
        expect(JSON.stringify(theirs.body).replaceAll(IDS.globexHq, 'X')).toBe(JSON.stringify(missing.body).replaceAll(MISSING, 'X'));
      }
    });

    it('refuses a window or a page it cannot answer, naming the argument', async () => {
      expect(await refusal(ROGUES([IDS.acmeHq], TF(172801)))).toEqual([['BAD_USER_INPUT', 'filter.timeFilter.durationSeconds']]);
      expect(await refusal(HONEYPOTS([IDS.acmeHq], TF(0)))).toEqual([['BAD_USER_INPUT', 'filter.timeFilter.durationSeconds']]);
      expect(await refusal(`{ rogueAccessPointsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}"], filter: ${TF()}, limit: 501) { BSSID } }`)).toEqual([['BAD_USER_INPUT', 'limit']]);
      expect(await refusal(HONEYPOTS([IDS.acmeHq], TF(), 'offset: -1'))).toEqual([['BAD_USER_INPUT', 'offset']]);
      expect(await refusal(`{ honeypotSSIDsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}"]) { ssid } }`)).toEqual([['GRAPHQL_VALIDATION_FAILED', null]]);
    });

    it('prices a page at its limit and charges the access points it held', async () => {
      // ten access points to an element: requested 2 + ceil(30 / 10) × (BSSID 1 + observers (2 + 5 × 1)) = 26;
      // actual: the one access point's own cost (BSSID 1 + observers 2 + 1 × 1) in tenths, rounded up: 2 + ceil(4 / 10) = 3
      const priced = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await app.createKey('acme', 'cost')}` },
        body: JSON.stringify({
          query: `{ rogueAccessPointsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}"], filter: ${TF()}, limit: 30) { BSSID observers { rssi } } }`,
          extensions: { cost: true },
        }),
      });
      expect(priced.body.extensions.cost).toMatchObject({ requested: 26, actual: 3 });
    });
  });

  it('refuses malformed detections and scans with the path of the offending field', async () => {
    const now = clock.now() / 1000 - REPORT_EPOCH / 1000;
    const bad = (extra: Record<string, unknown>) => report(SERIALS.acmeAp, at(now), extra);
    const body = await post([
      bad({ idsDetections: [detection(now, { srcIP: '10.0.0.300' })] }),
      bad({ idsDetections: [detection(now, { direction: 'IN' })] }),
      bad({ idsDetections: [detection(now, { protocol: 'T C P' })] }),
      bad({ idsDetections: [detection(now + 600)] }),
      bad({ idsDetections: [detection(now, { dstPort: 70000 })] }),
      bad({ foreignBSSIDs: [heard(ROGUE, 'x', -60), heard(ROGUE.toUpperCase(), 'y', -61)] }),
      bad({ foreignBSSIDs: [heard(ROGUE, 'x', 5)] }),
      bad({ foreignBSSIDs: [{ BSSID: ROGUE, ssid: 'x' }] }),
    ]);
    expect(body.rejected).toEqual([
      { index: 0, code: 'BAD_USER_INPUT', path: 'reports[0].idsDetections[0].srcIP', message: 'must be an IPv4 or IPv6 address, e.g. 203.0.113.7' },
      { index: 1, code: 'BAD_USER_INPUT', path: 'reports[1].idsDetections[0].direction', message: 'must be one of RX, TX' },
      { index: 2, code: 'BAD_USER_INPUT', path: 'reports[2].idsDetections[0].protocol', message: 'must be a protocol name like TCP, UDP or ICMP' },
      { index: 3, code: 'BAD_USER_INPUT', path: 'reports[3].idsDetections[0].observedAt', message: "is more than 5 minutes in the future: check the sender's clock" },
      { index: 4, code: 'BAD_USER_INPUT', path: 'reports[4].idsDetections[0].dstPort', message: 'must be a whole number from 0 to 65535' },
      { index: 5, code: 'BAD_USER_INPUT', path: 'reports[5].foreignBSSIDs[1].BSSID', message: `repeats ${ROGUE}: each may appear once per report` },
      { index: 6, code: 'BAD_USER_INPUT', path: 'reports[6].foreignBSSIDs[0].rssi', message: 'must be a whole number from -150 to 0' },
      { index: 7, code: 'BAD_USER_INPUT', path: 'reports[7].foreignBSSIDs[0].rssi', message: 'must be a whole number from -150 to 0' },
    ]);
    expect(body.accepted).toBe(0);
  });
});
