import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import type { DashboardClient } from './helpers/dashboard.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, fullReport, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const PASSWORD = 'correct horse battery';
const MISSING = '99999999-9999-4999-8999-999999999999';
/** A port label a device reports: it must neither end the chart's data block nor become markup. */
const HOSTILE_LABEL = '</script><b>WAN & "1"</b>';

describe.each(storeKinds())('the report pages over HTTP on %s', (kind) => {
  let app: TestApp;
  let client: DashboardClient;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    client = createDashboardClient(app);
    expect((await signIn(client, 'admin@acme.example', PASSWORD)).status).toBe(303);
    // the switch reports every minute for the last 20 minutes, its uplink port with a hostile label
    const now = Date.now();
    const reports = Array.from({ length: 20 }, (_, i) => {
      const report = fullReport(SERIALS.acmeSwitch, now - (20 - i) * 60_000, i + 1) as { interfaces: { label: string }[] };
      for (const port of report.interfaces) port.label = HOSTILE_LABEL;
      return report;
    });
    expect((await postReports(app, await createScopedKey(app, 'ingest'), reports)).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers another company\'s device, a device of another network, a missing one and a malformed id with the same 404 page', async () => {
    const missing = await client.get(`/networks/${IDS.acmeHq}/devices/${MISSING}`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no device at this address in your company.');
    for (const path of [
      `/networks/${IDS.globexHq}/devices/${IDS.globexAp}`,
      `/networks/${IDS.acmeHq}/devices/${IDS.globexAp}`,
      `/networks/${IDS.acmeHq}/devices/${IDS.acmeLabAp}`,
      `/networks/${MISSING}/devices/${IDS.acmeSwitch}`,
      `/networks/${IDS.acmeHq}/devices/not-a-uuid`,
    ]) {
      const res = await client.get(path);
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 404, text: missing.text });
    }
    expect((await client.get(`/networks/${IDS.acmeHq}/devices/${IDS.acmeSwitch}`)).status).toBe(200);
  });

  it("lists a switch's MAC table 50 entries a page, searchable by MAC address, port or VLAN", async () => {
    // 120 entries: 3c:22:fb:00:01:00 .. 3c:22:fb:00:01:77, entry i on port i % 12 + 1, in VLAN 10 or 20
    const macTable = Array.from({ length: 120 }, (_, i) => ({ macAddress: `3c:22:fb:00:01:${i.toString(16).padStart(2, '0')}`, vlanID: i % 2 === 0 ? 10 : 20, portNumber: (i % 12) + 1 }));
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), [report(SERIALS.acmeSwitch, new Date().toISOString(), { macTable })]);
    expect(posted.body).toMatchObject({ accepted: 1, rejected: [] });
    const page = `/networks/${IDS.acmeHq}/devices/${IDS.acmeSwitch}`;
    const macsOf = (text: string) => [...text.matchAll(/<tr data-mac="([0-9a-f:]+)">/g)].map((m) => m[1]);
    const mac = (i: number) => `3c:22:fb:00:01:${i.toString(16).padStart(2, '0')}`;

    const first = await client.get(page);
    expect(first.status).toBe(200);
    expect(first.text).toContain('<h2>MAC table <span class="count">120</span></h2>');
    expect(macsOf(first.text)).toEqual(Array.from({ length: 50 }, (_, i) => mac(i)));
    expect(first.text).toContain('1–50 of 120 · page 1 of 3');
    expect(first.text).toContain(`href="${page}?page=2#mac-table" rel="next"`);
    const third = await client.get(`${page}?page=3`);
    expect(macsOf(third.text)).toEqual(Array.from({ length: 20 }, (_, i) => mac(100 + i)));
    expect(third.text).toContain('101–120 of 120 · page 3 of 3');

    // a MAC address in any notation; a number is a port or a VLAN
    const byMac = await client.get(`${page}?q=${encodeURIComponent('3C-22-FB-00-01-7')}`);
    expect(macsOf(byMac.text)).toEqual(Array.from({ length: 8 }, (_, i) => mac(0x70 + i)));
    expect(byMac.text).toContain('1–8 of 8 (of 120) · page 1 of 1');
    const byPort = await client.get(`${page}?q=12`);
    // the address of earlier versions, mac=, still searches
    expect(macsOf((await client.get(`${page}?mac=12`)).text)).toEqual(macsOf(byPort.text));
    expect(macsOf(byPort.text)).toEqual(Array.from({ length: 10 }, (_, i) => mac(11 + 12 * i)));
    const byVlan = await client.get(`${page}?q=20&page=2`);
    expect(macsOf(byVlan.text)).toEqual(Array.from({ length: 10 }, (_, i) => mac(101 + 2 * i)));
    expect(byVlan.text).toContain(`href="${page}?q=20#mac-table" rel="prev"`);
    // the search is text on the page, never markup
    const hostile = await client.get(`${page}?q=${encodeURIComponent('"><b>x')}`);
    expect(hostile.text).toContain('value="&quot;&gt;&lt;b&gt;x"');
    expect(hostile.text).toContain('No entry matches');
    expect((await client.get(`${page}?page=0`)).status).toBe(404);
  });

  it('answers another company\'s event log and a missing network\'s with the same 404 page', async () => {
    const missing = await client.get(`/networks/${MISSING}/events`);
    expect(missing.status).toBe(404);
    for (const path of [`/networks/${IDS.globexHq}/events`, `/networks/${IDS.acmeHq}/events?device=${IDS.globexAp}`, `/networks/${IDS.acmeHq}/events?page=0`]) {
      const res = await client.get(path);
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 404, text: missing.text });
    }
    const own = await client.get(`/networks/${IDS.acmeHq}/events`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('TEST_EVENT');
  });

  it('embeds each chart\'s series as data that no label can break out of, with no inline script', async () => {
    const res = await client.get(`/networks/${IDS.acmeHq}`);
    expect(res.status).toBe(200);
    const scripts = [...res.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1] as string);
    expect(scripts.every((attributes) => / src="\/assets\/[^"]+"/.test(attributes) || attributes === ' type="application/json" class="chart-data"')).toBe(true);
    const blocks = [...res.text.matchAll(/<script type="application\/json" class="chart-data">(.*?)<\/script>/g)].map((m) => JSON.parse(m[1] as string));
    // quality, throughput, clients: each with buckets of the last 20 minutes
    expect(blocks.map((b) => b.unit)).toEqual(['%', 'Mbit/s', 'clients']);
    expect(blocks[0].labels).toEqual([`Core switch\twith tab · ${HOSTILE_LABEL}`]);
    expect(res.text).not.toContain('<b>WAN');
    expect(res.text).toContain('\\u003c/script\\u003e\\u003cb\\u003eWAN \\u0026');
    for (const block of blocks) expect(block.data[0].length).toBeGreaterThan(0);
    expect(blocks[0].data[1].every((v: number | null) => v === null || v === 100)).toBe(true);
  });

  it('shows "No data in this window" for a network without reports, and serves uPlot as a versioned asset', async () => {
    const res = await client.get(`/networks/${IDS.acmeEmpty}`);
    expect(res.status).toBe(200);
    expect(res.text.match(/No data in this window/g)?.length).toBe(3);
    for (const name of ['uPlot\\.iife\\.min\\.js', 'uPlot\\.min\\.css', 'charts\\.js']) {
      const url = new RegExp(`"(/assets/${name}\\?v=[^"]+)"`).exec(res.text)?.[1] as string;
      const asset = await app.request(url);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(name.endsWith('css') ? /^text\/css/ : /^text\/javascript/);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });
});
