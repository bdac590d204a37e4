import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateDataset, generateDemoDataset } from '../src/tools/demo/dataset.js';
import type { ImportCompany } from '../src/platform/import/import.schema.js';
import { createFleet, fleetNetworksOf } from '../src/tools/simulator/simulator.fleet.js';
import { runSimulator } from '../src/tools/simulator/simulator.runner.js';
import { createHttpSink } from '../src/tools/simulator/simulator.sink.js';
import type { ReportSink } from '../src/tools/simulator/simulator.sink.js';
import { formatBytes } from '../src/dashboard/device.view.js';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser } from './helpers/browser.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const DEMO = generateDemoDataset();
const ACME = DEMO.companies[0] as ImportCompany;
const GLOBEX = generateDataset({ companies: 2, networksPerCompany: 1, devicesPerNetwork: 3, clientsPerNetwork: 2, seed: 7, slugPrefix: 'globex' }).companies[1] as ImportCompany;
const HQ = ACME.networks.find((n) => n.label === 'Headquarters');
const HQ_ID = HQ?.UUID as string;
const deviceId = (label: string) => HQ?.virtualDevices.find((d) => d.label === label)?.UUID as string;
/** The access point that stops reporting an hour before the tests look. */
const SILENT = HQ?.virtualDevices.find((d) => d.label === 'AP 03')?.hardwareDevice?.serialNumber as string;
const OFFLINE_AFTER_SECONDS = 600;

/**
 * The offset that makes now 13:00 on a Tuesday, Wednesday or Thursday at the
 * simulated site, so that the office is full (wireless clients, busy uplinks)
 * whenever the tests run.
 */
function middayOffsetMinutes(nowMs: number): number {
  for (let days = 0; ; days++) {
    const target = new Date(nowMs + days * 86_400_000);
    target.setUTCHours(13, 0, 0, 0);
    if ([2, 3, 4].includes(target.getUTCDay())) return Math.round((target.getTime() - nowMs) / 60_000);
  }
}

/** Only the reports of devices other than `serial` reach `sink`. */
function without(serial: string, sink: ReportSink): ReportSink {
  return { send: (reports) => sink.send(reports.filter((r) => r.serialNumber !== serial)) };
}

describe.skipIf(!chromiumAvailable()).each(storeKinds())('the report pages in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  let apiKey: string;
  // the server's clock: an hour behind while the history is sent, then now
  let shift = -3600_000;
  const clock = () => Date.now() + shift;

  beforeAll(async () => {
    [app, browser] = await Promise.all([
      startTestApp(kind, { data: { companies: [...DEMO.companies, GLOBEX] }, env: { DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS) }, clock }),
      launchBrowser(),
    ]);
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await app.server.services.users.create({ companySlug: GLOBEX.slug, email: 'admin@globex.example', role: 'admin', password: PASSWORD });
    apiKey = await app.createKey('acme', 'compare');
    const ingestKey = await createScopedKey(app, 'ingest');
    const sink = createHttpSink({ url: app.url, key: ingestKey });
    const site = fleetNetworksOf(ACME).filter((n) => n.id === HQ_ID).map((n) => ({ ...n, utcOffsetMinutes: middayOffsetMinutes(Date.now()) }));
    const fleet = createFleet(site, { seed: 1, intervalSeconds: 300 });
    const signal = new AbortController().signal;
    // 23 hours of every device up to an hour ago; then the hour since, of all but the silent access point
    await runSimulator({ fleet, sink, backfillSeconds: 23 * 3600, maxLiveTicks: 0, signal, now: clock });
    shift = 0;
    await app.server.services.reports.checkOffline();
    await runSimulator({ fleet, sink: without(SILENT, sink), backfillSeconds: 3600, maxLiveTicks: 0, signal, now: clock });
    // a day of the simulated site has about 20 events; the controller reports 40 configuration changes for more pages
    const changes = Array.from({ length: 40 }, (_, i) => ({ type: 'CONFIG_APPLIED', observedAt: new Date(Date.now() - (i + 1) * 60_000).toISOString(), details: { revision: 100 - i } }));
    const serialOf = (label: string) => HQ?.virtualDevices.find((d) => d.label === label)?.hardwareDevice?.serialNumber as string;
    const recent = new Date(Date.now() - 30_000).toISOString();
    // the simulator's outages (up to 12 minutes) can fall on the last minutes: Switch 01, the page's online device, reports now
    const posted = await postReports(app, ingestKey, [report(serialOf('Controller 01'), recent, { events: changes }), report(serialOf('Switch 01'), recent)]);
    expect([posted.status, posted.body.accepted]).toEqual([200, 2]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  // each test's browser profile: closed after it, so its pages (live charts) stop using the CPU the next test needs
  let context: BrowserContext | undefined;
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** A page of a fresh profile on a 1280x900 window that records every console error and page error (a CSP violation is one). */
  async function openPage(storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<{ page: Page; problems: string[] }> {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(storageState ? { storageState } : {}) });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return { page, problems };
  }

  // each user signs in once, through the form; every test then starts a fresh profile with that session's cookie
  const sessions = new Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>();

  /** A signed-in page (a fresh profile with `email`'s session) that records every console error and page error. */
  async function openSignedIn(email = 'admin@acme.example'): Promise<{ page: Page; problems: string[] }> {
    let session = sessions.get(email);
    if (!session) {
      const { page, problems } = await openPage();
      await page.goto(`${app.url}/sign-in`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(problems).toEqual([]);
      session = await page.context().storageState();
      sessions.set(email, session);
      await page.context().close();
    }
    return openPage(session);
  }

  /** The whole page, or one part of it (`selector`), as docs/screenshots/<name>.png; one store is enough for the README. */
  async function screenshot(page: Page, name: string, selector?: string): Promise<void> {
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const path = new URL(`${name}.png`, SCREENSHOTS).pathname;
    await (selector ? page.locator(selector).screenshot({ path }) : page.screenshot({ path, fullPage: true }));
  }

  async function api(query: string, variables: Record<string, unknown> = {}): Promise<JsonTree> {
    const response = await app.graphql(query, { key: apiKey, variables });
    expect(response.body.errors).toBeUndefined();
    return response.body.data as JsonTree;
  }

  /** Hovers the middle of a chart's plot and returns its legend's values. */
  async function hoverValues(page: Page, id: string): Promise<string[]> {
    const over = page.locator(`#chart-${id} .u-over`);
    const box = await over.boundingBox();
    if (!box) throw new Error(`chart ${id} has no plot area`);
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2);
    return page.locator(`#chart-${id} .u-legend .u-series .u-value`).allInnerTexts();
  }

  it('draws the uplink and client charts with units and hover values, for 4 and 24 hours, without CSP violations', async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    for (const id of ['uplink-quality', 'uplink-throughput', 'active-clients']) {
      await page.locator(`#chart-${id}[data-drawn="true"] canvas`).waitFor();
    }
    expect(await page.locator('#chart-uplink-quality .u-axis').count()).toBe(2);
    const [time, ...quality] = await hoverValues(page, 'uplink-quality');
    expect(time).toMatch(/\d{1,2}:\d{2}/);
    expect(quality.some((v) => /^\d+(\.\d)? %$/.test(v))).toBe(true);
    expect((await hoverValues(page, 'uplink-throughput')).slice(1).some((v) => /^\d+(\.\d+)? Mbit\/s$/.test(v))).toBe(true);
    const clients = await hoverValues(page, 'active-clients');
    expect(clients.slice(1).every((v) => /^\d+ clients?$/.test(v))).toBe(true);
    expect(await page.locator('#chart-active-clients .u-legend').innerText()).toContain('Wireless');
    // tall enough to show every chart without scrolling under the sticky top bar (a scroll would end the hover)
    await page.setViewportSize({ width: 1280, height: 1200 });
    await page.locator('#chart-uplink-throughput[data-drawn="true"] canvas').waitFor();
    await hoverValues(page, 'uplink-throughput');
    await screenshot(page, 'network-charts', '#charts');

    await page.getByRole('link', { name: 'Last 24 hours' }).click();
    await page.locator('#chart-uplink-quality[data-drawn="true"] canvas').waitFor();
    expect(new URL(page.url()).searchParams.get('window')).toBe('24h');
    expect(await page.getByRole('link', { name: 'Last 24 hours' }).getAttribute('aria-current')).toBe('true');
    expect((await hoverValues(page, 'uplink-quality')).slice(1).some((v) => v.endsWith('%'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('shows the connected clients as the API has them, and the offline access point since when', async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    const data = await api(
      `query($id: UUID!) { networkClients(networkUUID: $id) { macAddress ip clientName isWireless signal connectedSSID { ssid } connectedVLAN { name vlanID } accessPoint { label } } }`,
      { id: HQ_ID },
    );
    const connected = data.networkClients as JsonTree[];
    expect(connected.length).toBeGreaterThan(0);
    // the first page of 50, by MAC address as the API orders them
    const expected = connected.slice(0, 50);
    expect(await page.locator('#clients h2 .count').innerText()).toBe(String(connected.length));
    const rows = page.locator('#clients tbody tr');
    expect(await rows.count()).toBe(expected.length);
    const wireless = expected.findIndex((c) => c.isWireless && c.signal !== null);
    const cells = await rows.nth(wireless).locator('td').allInnerTexts();
    const client = expected[wireless] as JsonTree;
    expect(cells[0]).toBe(`${client.clientName ?? 'Unnamed'}\n${client.macAddress}`);
    expect(cells[1]).toBe(client.ip ?? 'No address yet');
    expect(cells[2]).toBe(client.connectedSSID?.ssid ?? 'Wireless');
    expect(cells[3]).toBe(client.connectedVLAN ? `${client.connectedVLAN.name} (${client.connectedVLAN.vlanID})` : '—');
    expect(cells[4]).toBe(`${client.signal} dBm`);
    expect(cells[5]).toBe(client.accessPoint?.label ?? '—');
    const wired = expected.findIndex((c) => !c.isWireless);
    if (wired !== -1) expect(await rows.nth(wired).locator('td').nth(2).innerText()).toMatch(/^Switch \d\d · |^Wired$/);

    const silent = page.locator(`#devices tr[data-device="${deviceId('AP 03')}"]`);
    expect(await silent.locator('td').nth(3).innerText()).toMatch(/^Offline since (\d\d minutes ago|1 hour ago)$/);
    expect(await page.locator(`#devices tr[data-device="${deviceId('Switch 01')}"] td`).nth(3).innerText()).toBe('Online');
    await screenshot(page, 'network');

    // the search box finds a client by part of its name, and by the start of its MAC address, on the server
    const named = connected.find((c) => typeof c.clientName === 'string' && c.clientName.length > 4) as JsonTree;
    const part = (named.clientName as string).slice(1, -1).toUpperCase();
    await page.getByLabel('Find a client').fill(part);
    await page.locator('#clients').getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=/);
    const byName = connected.filter((c) => typeof c.clientName === 'string' && c.clientName.toLowerCase().includes(part.toLowerCase()));
    expect(await page.locator('#clients tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-client')))).toEqual(
      expect.arrayContaining(byName.map((c) => c.macAddress)),
    );
    expect(await page.locator('#clients tbody tr td:first-child .strong').allInnerTexts()).toContain(named.clientName);
    await page.getByLabel('Find a client').fill((named.macAddress as string).slice(0, 14).toUpperCase().replaceAll(':', '-'));
    await page.locator('#clients').getByRole('button', { name: 'Search' }).click();
    await page.locator('#clients tbody tr').first().waitFor();
    expect(await page.locator('#clients tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-client')))).toContain(named.macAddress);
    await page.locator('#clients').getByRole('link', { name: 'Clear' }).click();
    await page.waitForURL((url) => !url.search.includes('q='));
    expect(await page.locator('#clients tbody tr').count()).toBe(expected.length);
    expect(problems).toEqual([]);
  });

  it('shows a switch\'s ports with their 24-hour counters, and an access point\'s radios and BSSIDs', async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    await page.locator('#devices').getByRole('link', { name: 'Switch 01' }).click();
    await page.getByRole('heading', { name: 'Switch 01' }).waitFor();
    const data = await api(
      `query($id: UUID!) { switchPortStats(virtualDeviceUUID: $id) { portNumber totalRxBytes totalTxBytes } phyInterfacesForVirtualDevice(virtualDeviceUUID: $id) { portNumber portSpeedMbps isConnected stpState } }`,
      { id: deviceId('Switch 01') },
    );
    const ports = data.phyInterfacesForVirtualDevice as JsonTree[];
    expect(await page.locator('#ports tbody tr').count()).toBe(ports.length);
    const busy = (data.switchPortStats as JsonTree[]).find((s) => s.totalRxBytes > 0) as JsonTree;
    const row = page.locator(`#ports tr[data-port="${busy.portNumber}"] td`);
    expect(await row.nth(8).innerText()).toBe(formatBytes(busy.totalRxBytes));
    expect(await row.nth(9).innerText()).toBe(formatBytes(busy.totalTxBytes));
    expect(await row.nth(2).innerText()).toBe('Up');
    // the spanning-tree state as the API has it (the simulator's switches report one per port)
    const stp = ports.find((p) => p.portNumber === busy.portNumber)?.stpState as string;
    expect(stp).toMatch(/^[A-Z]+$/);
    expect((await row.nth(3).innerText()).toUpperCase()).toBe(stp);
    // CPU and memory as the API has them; each port's LLDP neighbour, by the network's device it resolves to
    const switch01 = (await api(`query($id: UUID!) { virtualDevice(UUID: $id) { cpuUsagePercent memoryTotalBytes phyInterfaces { portNumber lldpNeighbor { portID remoteDevice { label } } } } }`, { id: deviceId('Switch 01') })).virtualDevice as JsonTree;
    expect(await page.locator('[data-stat="cpu"] .stat-value').innerText()).toBe(`${switch01.cpuUsagePercent}%`);
    expect(await page.locator('[data-stat="memory"] .stat-value').innerText()).toContain(`of ${formatBytes(switch01.memoryTotalBytes)}`);
    const seen = (switch01.phyInterfaces as JsonTree[]).filter((p) => p.lldpNeighbor !== null);
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) {
      expect(await page.locator(`#ports tr[data-port="${p.portNumber}"] td`).nth(7).innerText()).toBe(`${p.lldpNeighbor.remoteDevice.label} ${p.lldpNeighbor.portID}`);
    }
    await screenshot(page, 'device');

    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    const bssids = await api(`query($id: UUID!) { bssidsForNetwork(networkUUID: $id, includeInactive: true) { BSSID accessPointSerialNumber } }`, { id: HQ_ID });
    const own = (bssids.bssidsForNetwork as JsonTree[]).filter((b) => b.accessPointSerialNumber === 'MXC00-0000-0000').map((b) => b.BSSID);
    expect(own.length).toBeGreaterThan(0);
    expect(await page.locator('#radios tbody tr td:first-child').allInnerTexts()).toEqual(own);
    expect(problems).toEqual([]);
  });

  it("draws an access point's channel utilization per band with its channels, and a controller's DNS request rate, as the API has them", async () => {
    const { page, problems } = await openSignedIn();
    const span = { durationSeconds: 4 * 3600, stepSeconds: 300 };
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    const data = await api(
      `query($n: UUID!, $d: UUID!, $w: MetricsFilterInput!) { channelUtilizationByAP(networkUUID: $n, apVirtualDeviceUUID: $d, filter: { timeFilter: $w }) { band channel channelWidthMHz txPowerDbm values { totalUtilization } } }`,
      { n: HQ_ID, d: deviceId('AP 01'), w: span },
    );
    const radios = data.channelUtilizationByAP as JsonTree[];
    expect(radios.length).toBeGreaterThan(1);
    expect(await page.locator('#channels table.channels-table tbody tr').count()).toBe(radios.length);
    for (const r of radios) {
      const cells = await page.locator(`#channels tr[data-band="${r.band}"] > td`).allInnerTexts();
      expect(cells.slice(1, 4)).toEqual([String(r.channel), `${r.channelWidthMHz} MHz`, `${r.txPowerDbm} dBm`]);
      const last = r.values[r.values.length - 1].totalUtilization as number;
      expect(cells[5]).toBe(`${Math.round(last * 10) / 10}%`);
      // the chart draws the radio's buckets; hovering shows each line's value in %
      const id = `channel-${(r.band as string).toLowerCase()}`;
      await page.locator(`#chart-${id}[data-drawn="true"] canvas`).waitFor();
      await page.locator(`#chart-${id}`).scrollIntoViewIfNeeded();
      const hovered = await hoverValues(page, id);
      expect(hovered.slice(1).some((v) => /^\d+(\.\d)? %$/.test(v)), hovered.join(', ')).toBe(true);
    }
    // tall enough for the whole section below the sticky top bar
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'device-channels', '#channels');

    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('Controller 01')}`);
    const dns = await api(`query($d: UUID!, $w: MetricsFilterInput!) { controllerDNSRequestRates(virtualDeviceUUID: $d, filter: $w) { values { value } } }`, { d: deviceId('Controller 01'), w: span });
    expect((dns.controllerDNSRequestRates as JsonTree).values.length).toBeGreaterThan(10);
    await page.locator('#chart-dns-requests[data-drawn="true"] canvas').waitFor();
    const rate = await hoverValues(page, 'dns-requests');
    expect(rate.slice(1).some((v) => /^\d+(\.\d+)? req\/s$/.test(v)), rate.join(', ')).toBe(true);
    // an access point has no DNS section, a controller no channels
    expect(await page.locator('#channels').count()).toBe(0);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'device-dns', '#dns');
    expect(problems).toEqual([]);
  });

  it("charts an access point's health scores of the last 24 hours from the simulated radios, clients, CPU and memory", async () => {
    const { page, problems } = await openSignedIn();
    const serial = HQ?.virtualDevices.find((d) => d.label === 'AP 01')?.hardwareDevice?.serialNumber as string;
    const data = await api(
      `query($s: String!) { apHealthScores(serialNumber: $s, filter: { durationSeconds: 86400, stepSeconds: 900 }) { timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent } }`,
      { s: serial },
    );
    const scores = data.apHealthScores as JsonTree[];
    // the simulator reports all three sources: every score is there in the latest bucket, between 0 and 100
    const latest = scores[scores.length - 1] as JsonTree;
    for (const field of ['overallScore', 'performanceScore', 'rfScore', 'systemScore', 'cpuPercent', 'memoryPercent']) {
      expect(latest[field], field).toBeTypeOf('number');
      expect(latest[field] >= 0 && latest[field] <= 100, `${field} ${latest[field]}`).toBe(true);
    }
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    expect(await page.locator('#health .table-note strong').innerText()).toBe(String(Math.round(latest.overallScore as number)));
    for (const id of ['health-scores', 'health-system']) await page.locator(`#chart-${id}[data-drawn="true"] canvas`).waitFor();
    await page.locator('#chart-health-scores').scrollIntoViewIfNeeded();
    const hovered = await hoverValues(page, 'health-scores');
    // overall, RF and system always have a value; performance none in a bucket without clients (the night), shown as —
    const [, overall, rf, performance, system] = hovered;
    expect([overall, rf, system].every((v) => /^\d+ \/ 100$/.test(v ?? '')), hovered.join(', ')).toBe(true);
    expect(performance, hovered.join(', ')).toMatch(/^(\d+ \/ 100|—)$/);
    // a controller has no health section
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('Controller 01')}`);
    expect(await page.locator('#health').count()).toBe(0);
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.locator('#chart-health-scores[data-drawn="true"] canvas').waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'device-health', '#health');
    expect(problems).toEqual([]);
  });

  it("draws the network's topology as the API has it: each device with a link, one line per linked pair", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    const data = await api(`query($id: UUID!) { networkTopology(networkUUID: $id) { virtualDevice { UUID } neighbor { remoteDevice { UUID } } } }`, { id: HQ_ID });
    const links = data.networkTopology as JsonTree[];
    // the simulator's cabling: every neighbour is a device of the network
    expect(links.length).toBeGreaterThan(3);
    expect(links.every((l) => l.neighbor.remoteDevice !== null)).toBe(true);
    const devices = new Set(links.flatMap((l) => [l.virtualDevice.UUID, l.neighbor.remoteDevice.UUID]));
    const pairs = new Set(links.map((l) => [l.virtualDevice.UUID, l.neighbor.remoteDevice.UUID].sort().join('|')));
    const drawn = await page.locator('#topology a.topology-node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-device')));
    expect(new Set(drawn)).toEqual(devices);
    expect(drawn.length).toBe(devices.size);
    expect(await page.locator('#topology line.topology-link').count()).toBe(pairs.size);
    await page.locator('#topology a.topology-node').first().click();
    await page.waitForURL(/\/devices\//);
    await page.goBack();
    await screenshot(page, 'network-topology', '#topology');
    expect(problems).toEqual([]);
  });

  it("shows a switch's MAC table as the API has it, a page at a time, and finds an entry by MAC address", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('Switch 01')}`);
    const data = await api(`query($id: UUID!) { switchMACTable(virtualDeviceUUID: $id) { macAddress vlanID portNumber } }`, { id: deviceId('Switch 01') });
    const table = data.switchMACTable as { macAddress: string; vlanID: number | null; portNumber: number }[];
    expect(table.length).toBeGreaterThan(0);
    const rows = page.locator('#mac-table tbody tr');
    expect(await page.locator('#mac-table tbody tr td:first-child').allInnerTexts()).toEqual(table.slice(0, 50).map((e) => e.macAddress));
    const wanted = table[table.length - 1]!;
    await page.getByLabel('Find').fill(wanted.macAddress.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=/);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').allInnerTexts()).toEqual([wanted.macAddress, String(wanted.vlanID ?? '—'), String(wanted.portNumber), expect.any(String), expect.any(String)]);
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.waitForURL((url) => !url.search.includes('q='));
    await screenshot(page, 'device-mac-table', '#mac-table');
    expect(problems).toEqual([]);
  });

  it("shows a PDU's outlets as the API has them, with each outlet's power and the temperature over 4 hours", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('PDU 01')}`);
    await page.getByRole('heading', { name: 'PDU 01' }).waitFor();
    const data = await api(`query($id: UUID!) { pduMetrics(virtualDeviceUUID: $id, filter: { durationSeconds: 14400, stepSeconds: 300 }) { outlets { outletNumber label isOn powerWatts } powerWatts { values { outletNumber } } } }`, { id: deviceId('PDU 01') });
    const pdu = data.pduMetrics as { outlets: { outletNumber: number; label: string; isOn: boolean; powerWatts: number }[]; powerWatts: { values: { outletNumber: number }[] } };
    expect(pdu.outlets.length).toBe(8);
    const rows = await page.locator('#outlets tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => (td.textContent ?? "").trim())));
    expect(rows).toEqual(pdu.outlets.map((o) => [String(o.outletNumber), o.label, o.isOn ? 'On' : 'Off', `${o.powerWatts.toFixed(1)} W`]));
    // one line per outlet that drew power in the window, and the temperature
    await page.locator('#chart-outlet-power .u-over').waitFor();
    const outletsCharted = new Set(pdu.powerWatts.values.map((v) => v.outletNumber)).size;
    expect(await page.locator('#chart-outlet-power .u-legend .u-series').count()).toBe(outletsCharted + 1);
    // both charts in view (a scroll would end the hover)
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.locator('#pdu-charts').scrollIntoViewIfNeeded();
    await page.locator('#chart-temperature[data-drawn="true"] canvas').waitFor();
    expect((await hoverValues(page, 'temperature'))[1]).toMatch(/^\d+\.\d °C$/);
    expect((await hoverValues(page, 'outlet-power')).slice(1).some((v) => /^\d+(\.\d)? W$/.test(v))).toBe(true);
    await page.evaluate('window.scrollTo(0, 0)');
    // every column of the ports table in view at 1280 px, none behind a scroll
    expect(await page.locator('.ports-table').evaluate((table) => table.scrollWidth - (table.parentElement?.clientWidth ?? 0))).toBeLessThanOrEqual(0);
    await screenshot(page, 'pdu');
    await screenshot(page, 'device-pdu-outlets', '#outlets');
    await screenshot(page, 'device-pdu-charts', '#pdu-charts');
    expect(problems).toEqual([]);
  });

  it('filters the event log by type and device, and pages through it', async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    await page.getByRole('link', { name: 'Event log' }).click();
    await page.getByRole('heading', { name: 'Event log' }).waitFor();
    const all = await api(`query($id: UUID!) { recentEventLogEventsPage(networkUUID: $id, limit: 25) { total events { eventTypeAPIName } } }`, { id: HQ_ID });
    const total = (all.recentEventLogEventsPage as JsonTree).total as number;
    expect(total).toBeGreaterThan(25);
    expect(await page.locator('#events tbody tr').count()).toBe(25);
    expect(await page.locator('.pager-status').innerText()).toBe(`1–25 of ${total} · page 1 of ${Math.ceil(total / 25)}`);
    await screenshot(page, 'event-log');

    await page.getByRole('link', { name: 'Older' }).click();
    await page.locator('.pager-status', { hasText: 'page 2' }).waitFor();
    expect(await page.locator('.pager-status').innerText()).toBe(`26–${Math.min(50, total)} of ${total} · page 2 of ${Math.ceil(total / 25)}`);

    await page.getByLabel('Type').selectOption('DEVICE_OFFLINE');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=DEVICE_OFFLINE/);
    const types = await page.locator('#events tbody tr td:nth-child(2) code').allInnerTexts();
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['DEVICE_OFFLINE']));

    await page.getByLabel('Device').selectOption({ label: 'AP 03' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/device=/);
    expect(new Set(await page.locator('#events tbody tr td:nth-child(3)').allInnerTexts())).toEqual(new Set(['AP 03']));
    expect(problems).toEqual([]);
  });

  it("shows the network's security page as the API has it: rogue access points, honeypots, IDS and IPS events a page at a time, firewall rules", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}`);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    const day = '{ timeFilter: { durationSeconds: 86400, stepSeconds: 300 } }';
    const data = await api(
      `query($id: UUID!) {
        network(UUID: $id) { idsIPSConfig { mode } }
        rogues: rogueAccessPointsObservedOnNetwork(networkUUIDs: [$id], filter: ${day}, limit: 50) { BSSID ssid wiredMACAddress wiredPortNumber observers { rssi virtualDevice { label } } }
        honeypots: honeypotSSIDsObservedOnNetwork(networkUUIDs: [$id], filter: ${day}, limit: 50) { BSSID ssid }
        ids: idsEvents(networkUUID: $id, limit: 25) { total events { srcIP srcPort dstIP dstPort signature } }
        ips: ipsEvents(networkUUID: $id, limit: 25) { total }
        rules: firewallRulesForNetwork(networkUUID: $id) { name action priority isEnabled } }`,
      { id: HQ_ID },
    );
    const mode = (data.network as JsonTree).idsIPSConfig?.mode;
    expect(await page.locator('.page-header').innerText()).toContain(mode === 'IPS' ? 'IDS/IPS: prevention (IPS)' : mode === 'IDS' ? 'IDS/IPS: detection only (IDS)' : 'IDS/IPS: not configured');
    // the simulated day has rogue access points or honeypots, and IDS detections on more than one page
    const rogues = data.rogues as JsonTree[];
    const honeypots = data.honeypots as JsonTree[];
    expect(rogues.length + honeypots.length).toBeGreaterThan(0);
    expect(await page.locator('#rogues h2 .count').innerText()).toBe(String(rogues.length));
    expect(await page.locator('#rogues tbody tr td:first-child code').allInnerTexts()).toEqual(rogues.map((r) => r.BSSID));
    for (const [i, r] of rogues.entries()) {
      const cells = await page.locator('#rogues tbody tr').nth(i).locator('td').allInnerTexts();
      expect(cells[1]).toBe(`${r.wiredMACAddress} port ${r.wiredPortNumber}`);
      for (const o of r.observers) expect(cells[3]).toContain(`${o.virtualDevice.label} ${o.rssi} dBm`);
    }
    expect(await page.locator('#honeypots tbody tr td:first-child').allInnerTexts()).toEqual(honeypots.map((h) => h.ssid));
    const ids = data.ids as JsonTree;
    expect(ids.total).toBeGreaterThan(25);
    expect(await page.locator('#ids-events h2 .count').innerText()).toBe(String(ids.total));
    expect(await page.locator('#ids-events tbody tr').count()).toBe(25);
    const newest = ids.events[0] as JsonTree;
    const cells = await page.locator('#ids-events tbody tr').first().locator('td').allInnerTexts();
    expect(cells[1]).toBe(newest.signature);
    expect(cells[2]).toBe(`${newest.srcIP}${newest.srcPort === null ? '' : `:${newest.srcPort}`} → ${newest.dstIP}${newest.dstPort === null ? '' : `:${newest.dstPort}`}`);
    expect(await page.locator('#ips-events h2 .count').innerText()).toBe(String((data.ips as JsonTree).total));
    const rules = data.rules as JsonTree[];
    expect(rules.length).toBeGreaterThan(0);
    expect(await page.locator('#firewall tbody tr td:nth-child(2)').allInnerTexts()).toEqual(rules.map((r) => r.name));
    await screenshot(page, 'network-security');

    await page.getByRole('link', { name: 'Older' }).click();
    await page.locator('.pager-status', { hasText: 'page 2' }).waitFor();
    expect(await page.locator('#ids-events tbody tr').count()).toBe(Math.min(25, (ids.total as number) - 25));
    expect(problems).toEqual([]);
  });

  it("lists an access point's latest client connection events as the API has them", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    const data = await api(
      `query($n: UUID!, $d: UUID!) { wirelessClientConnectionEventsPage(networkUUID: $n, limit: 20, apVirtualDeviceUUIDFilter: [$d]) { total events { eventType generatedAt macAddress reason } } }`,
      { n: HQ_ID, d: deviceId('AP 01') },
    );
    const { total, events } = data.wirelessClientConnectionEventsPage as { total: number; events: JsonTree[] };
    expect(events.length).toBeGreaterThan(0);
    expect(await page.locator('#connection-events h2 .count').innerText()).toBe(String(total));
    const rows = page.locator('#connection-events tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-connection-event')))).toEqual(events.map((e) => e.eventType));
    expect(await page.locator('#connection-events tbody tr td:nth-child(3)').allInnerTexts()).toEqual(events.map((e) => e.macAddress));
    expect(await page.locator('#connection-events tbody tr td:nth-child(4)').allInnerTexts()).toEqual(events.map((e) => e.reason ?? '—'));
    expect(await page.locator('#connection-events tbody time').first().getAttribute('datetime')).toBe(events[0]?.generatedAt);
    if (total > events.length) expect(await page.locator('#connection-events .table-note').innerText()).toBe(`The latest ${events.length} of ${total}.`);
    // the whole page in the viewport, so the section needs no scroll under the sticky top bar
    await page.setViewportSize({ width: 1280, height: Math.ceil(await page.evaluate('document.body.scrollHeight')) + 100 });
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'ap-connection-events', '#connection-events');
    expect(problems).toEqual([]);
  });

  it("shows a controller's DNS request rate and its network's firewall rules in priority order", async () => {
    const { page, problems } = await openSignedIn();
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('Controller 01')}`);
    await page.getByRole('heading', { name: 'Controller 01' }).waitFor();
    const data = await api(`query($id: UUID!) { firewallRulesForNetwork(networkUUID: $id) { name action srcPrefix dstPrefix priority isEnabled } }`, { id: HQ_ID });
    const rules = data.firewallRulesForNetwork as JsonTree[];
    expect(rules.length).toBeGreaterThan(0);
    expect(await page.locator('#firewall h2 .count').innerText()).toBe(String(rules.length));
    const rows = await page.locator('#firewall tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
    expect(rows).toEqual(rules.map((r) => [String(r.priority), r.name, `${r.action}${r.isEnabled ? '' : ' disabled'}`, r.srcPrefix ?? 'any', r.dstPrefix ?? 'any']));
    await page.locator('#chart-dns-requests[data-drawn="true"] canvas').waitFor();
    await screenshot(page, 'controller');
    // an access point's page has no firewall section
    await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('AP 01')}`);
    expect(await page.locator('#firewall').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('answers another company\'s device and event log pages with the 404 of a missing one', async () => {
    const { page } = await openSignedIn('admin@globex.example');
    const device = await page.goto(`${app.url}/networks/${HQ_ID}/devices/${deviceId('Switch 01')}`);
    expect(device?.status()).toBe(404);
    expect(await page.content()).not.toContain('Switch 01');
    const events = await page.goto(`${app.url}/networks/${HQ_ID}/events`);
    expect(events?.status()).toBe(404);
  });
});
