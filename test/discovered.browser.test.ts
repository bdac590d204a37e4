import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser, signedInPage as signInAs } from './helpers/browser.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf } from './helpers/writes.js';

// Issue 30's "adopts into a network with one click ... or ignores" in the dashboard: Settings > Collectors > Discovered
// lists what the company's collectors posted to POST /api/v1/collector/discovered, and an admin adopts one (hardware,
// virtual device and collector target, the same audited service as adoptDiscoveredDevice) or ignores one.
const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const COMMUNITY = 'c0mmunity-Secret';
const AUTH_KEY = 'auth-Secret-4711';
const LINUX = '1.3.6.1.4.1.8072.3.2.10';

describe.skipIf(!chromiumAvailable()).each(storeKinds())('Settings > Collectors > Discovered in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  let ingestKey: string;
  let readKey: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    app = await startTestApp(kind, { data: createFixture() });
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await app.server.services.users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
    ingestKey = (await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'hq-collector', scope: 'ingest' })).key;
    readKey = await app.createKey('acme');
    const globexKey = (await app.server.services.apiKeys.create({ companySlug: 'globex', label: 'globex-collector', scope: 'ingest' })).key;
    // what two collectors found, posted as a sweep posts it
    expect((await postFound(ingestKey, [
      { address: '192.0.2.50', snmpVersion: '3', sysName: 'edge-sw-1', sysDescr: 'Linux edge-sw-1 6.1.0', sysObjectID: LINUX, serialNumber: '0C8DDB5A0050' },
      { address: '192.0.2.51', snmpVersion: '2c', sysName: 'lab-printer', sysDescr: 'Printer', sysObjectID: '1.3.6.1.4.1.11.2.3.9.1', serialNumber: 'CN12345678' },
    ])).status).toBe(200);
    expect((await postFound(globexKey, [{ address: '198.51.100.70', snmpVersion: '2c', sysName: 'globex-sw', sysObjectID: LINUX, serialNumber: 'GLOBEX000070' }])).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const postFound = (key: string, devices: unknown[]) =>
    app.request('/api/v1/collector/discovered', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ devices }) });
  const signedInPage = (email: string): Promise<Page> => signInAs(browser, app.url, email, PASSWORD);
  const discovered = async (company = 'acme') => {
    const key = company === 'acme' ? readKey : await app.createKey(company);
    return (await app.graphql(`{ discoveredDevicesForCompany(companySlug: "${company}") { UUID address state virtualDeviceUUID collectorName } }`, { key })).body.data.discoveredDevicesForCompany as JsonTree[];
  };
  const uuidOf = async (address: string, company = 'acme') => (await discovered(company)).find((d) => d.address === address)?.UUID as string;

  it('lists what the collectors found, adopts one through the form into the devices and targets the API answers, and ignores the other', async () => {
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings/collectors`);
    expect(await page.locator('[data-discovered-count]').textContent()).toBe('2 new');
    await page.getByRole('link', { name: 'Discovered devices' }).click();
    await page.getByRole('heading', { name: 'Discovered devices', level: 1 }).waitFor();
    const rows = page.locator('#discovered-devices tbody tr');
    expect((await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'edge-sw-1 192.0.2.50 v3 Net-SNMP Linux 0C8DDB5A0050 just now last just now hq-collector Adopt Ignore',
      'lab-printer 192.0.2.51 v2c HP CN12345678 just now last just now hq-collector Adopt Ignore',
    ]);
    // another company's finding is never shown
    expect(await page.content()).not.toContain('198.51.100.70');
    await screenshot(page, 'collector-discovered');

    // adopt edge-sw-1: its sysName is the default label; a refused credential shows next to its field, nothing typed comes back
    await rows.filter({ hasText: 'edge-sw-1' }).getByRole('link', { name: 'Adopt' }).click();
    const form = page.locator('#adopt-device');
    expect(await form.getByLabel('Label').inputValue()).toBe('edge-sw-1');
    await form.getByLabel('Network', { exact: true }).selectOption(IDS.acmeLab);
    await form.getByLabel('User', { exact: true }).fill('netgraph');
    await form.getByLabel('Authentication password').fill('short');
    await form.getByLabel('Privacy password').fill(AUTH_KEY);
    await form.getByRole('button', { name: 'Adopt device' }).click();
    await page.locator('#adopt-device').getByText('snmp.authKey: must be a string of 8 to 255 characters').waitFor();
    expect(await page.locator('#target-authKey').getAttribute('aria-invalid')).toBe('true');
    expect(await page.content()).not.toContain(AUTH_KEY);
    expect(await page.locator('#adopt-device').getByLabel('Network', { exact: true }).inputValue()).toBe(IDS.acmeLab);
    await page.locator('#adopt-device').getByLabel('SNMP version').selectOption('2c');
    await page.locator('#adopt-device').getByLabel('Community').fill(COMMUNITY);
    await page.locator('#adopt-device').getByLabel('Device type').selectOption('SWITCH');
    await page.locator('#adopt-device').getByRole('button', { name: 'Adopt device' }).click();
    await page.getByText('Adopted 192.0.2.50 as edge-sw-1; your collectors poll it from their next fetch.').waitFor();
    expect(await page.locator('#discovered-devices tbody tr').count()).toBe(1);
    expect(await page.locator('#adopted-devices').textContent()).toContain('edge-sw-1');

    // the API answers the device, its hardware and its target; the collector's key gets the credentials typed
    const devices = (await app.graphql(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeLab}") { UUID label deviceType deviceModel hardwareDevice { serialNumber } } }`, { key: readKey })).body.data.virtualDevicesForNetwork as JsonTree[];
    const adopted = devices.find((d) => d.label === 'edge-sw-1');
    expect(adopted).toMatchObject({ deviceType: 'SWITCH', deviceModel: 'Linux', hardwareDevice: { serialNumber: '0C8DDB5A0050' } });
    expect((await discovered()).find((d) => d.address === '192.0.2.50')).toMatchObject({ state: 'ADOPTED', virtualDeviceUUID: adopted?.UUID, collectorName: 'hq-collector' });
    const fetched = (await app.request('/api/v1/collector/targets', { headers: { authorization: `Bearer ${ingestKey}` } })).body as { devices: JsonTree[] };
    expect(fetched.devices).toMatchObject([{ serialNumber: '0C8DDB5A0050', host: '192.0.2.50', port: 161, snmp: { version: '2c', community: COMMUNITY } }]);

    // ignore the printer: it leaves the list
    await page.locator('#discovered-devices tr', { hasText: 'lab-printer' }).getByRole('button', { name: 'Ignore' }).click();
    await page.getByText('Ignored lab-printer (192.0.2.51).').waitFor();
    await page.getByText('No discovered devices to adopt').waitFor();
    expect(await page.locator('#ignored-count').textContent()).toBe('1 ignored device is not listed.');
    expect((await discovered()).map((d) => [d.address, d.state])).toEqual([['192.0.2.50', 'ADOPTED'], ['192.0.2.51', 'IGNORED']]);
    await page.goto(`${app.url}/settings/collectors`);
    expect(await page.locator('[data-discovered-count]').textContent()).toBe('0 new');

    const audit = (await auditOf(app)).filter((entry) => entry.action.startsWith('discovered_device.'));
    expect(audit.map((entry) => [entry.action, entry.actor.type, entry.actor.label])).toEqual([
      ['discovered_device.adopt', 'user', 'admin@acme.example'],
      ['discovered_device.ignore', 'user', 'admin@acme.example'],
    ]);
    expect(JSON.stringify(audit)).not.toContain(COMMUNITY);
  }, 90_000);

  it('lets members read the list without the buttons, and answers their forged POSTs with 403', async () => {
    await postFound(ingestKey, [{ address: '192.0.2.52', snmpVersion: '2c', sysName: 'spare-sw', sysObjectID: LINUX, serialNumber: '0C8DDB5A0052' }]);
    const spare = await uuidOf('192.0.2.52');
    const page = await signedInPage('member@acme.example');
    await page.goto(`${app.url}/settings/collectors/discovered`);
    await page.getByText('Only admins can adopt or ignore them.').waitFor();
    await page.locator('#discovered-devices tr', { hasText: 'spare-sw' }).waitFor();
    expect(await page.getByRole('link', { name: 'Adopt' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Ignore' }).count()).toBe(0);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await page.evaluate(async ([token, id, network]) => {
      const post = async (path: string, fields: Record<string, string>) => (await fetch(path, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', ...fields }) })).status;
      return [
        await post(`/settings/collectors/discovered/${id}/ignore`, {}),
        await post(`/settings/collectors/discovered/${id}/adopt`, { networkUUID: network ?? '', version: '2c', community: 'public' }),
        (await fetch(`/settings/collectors/discovered/${id}/adopt`)).status,
      ];
    }, [csrf, spare, IDS.acmeHq]);
    expect(statuses).toEqual([403, 403, 403]);
    expect((await discovered()).find((d) => d.UUID === spare)?.state).toBe('NEW');
  });

  it('answers another company\'s discovered device, and one that is not there, with 404, and a POST without the CSRF token with 403', async () => {
    const theirs = await uuidOf('198.51.100.70', 'globex');
    const ours = await uuidOf('192.0.2.52');
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings/collectors/discovered`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await page.evaluate(async ([token, id, mine, network]) => [
      (await fetch(`/settings/collectors/discovered/${id}/adopt`)).status,
      (await fetch('/settings/collectors/discovered/not-a-uuid/adopt')).status,
      (await fetch(`/settings/collectors/discovered/${id}/ignore`, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '' }) })).status,
      (await fetch(`/settings/collectors/discovered/${id}/adopt`, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', networkUUID: network ?? '', version: '2c', community: 'public' }) })).status,
      (await fetch(`/settings/collectors/discovered/${mine}/ignore`, { method: 'POST', body: new URLSearchParams({}) })).status,
    ], [csrf, theirs, ours, IDS.acmeHq]);
    expect(statuses).toEqual([404, 404, 404, 404, 403]);
    expect((await discovered('globex')).map((d) => d.state)).toEqual(['NEW']);
    expect((await discovered()).find((d) => d.UUID === ours)?.state).toBe('NEW');
  });

  async function screenshot(page: Page, name: string): Promise<void> {
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }
});
