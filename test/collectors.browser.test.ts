import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser, signedInPage as signInAs } from './helpers/browser.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf } from './helpers/writes.js';

// Issue 30's "Seeing it work" in the dashboard: Settings > Collectors adds, edits and deletes a target (credentials
// typed into password fields, never shown back), lists each target's latest poll, and a device's page says where its
// reports come from after a report with a `poll` section (docs/reports.md).
const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const AUTH_KEY = 'auth-Secret-4711';
const PRIV_KEY = 'priv-Secret-0815';
const COMMUNITY = 'c0mmunity-Secret';
const SECRETS = [AUTH_KEY, PRIV_KEY, COMMUNITY, 'short'];
const POLL_ERROR = '192.0.2.20:161 did not answer (timeout after 2000 ms, 1 retry)';

/** The secrets of the test found in `text`. */
const secretsIn = (text: string) => SECRETS.filter((secret) => text.includes(secret));

/** A switch's report as a collector sends it: four ports, the first the uplink, and its poll's duration. */
function polledSwitch(observedAt: string): Record<string, unknown> {
  const port = (n: number, label: string, isConnected: boolean) => ({
    portNumber: n, label, portType: null, isEnabled: true, isConnected, isUplink: n === 1, isUplinkActive: n === 1, isTrunkPort: n === 1,
    portSpeedMbps: isConnected ? 1000 : null, nativeVLANID: 1, counters: { rxBytes: 52_000_000 * n, txBytes: 31_000_000 * n, rxPackets: 41_000 * n, txPackets: 29_000 * n, rxErrors: 0, txErrors: 0 },
  });
  return report(SERIALS.acmeSwitch, observedAt, {
    uptimeSeconds: 1_209_600,
    macAddress: '0c:8d:db:5a:00:01',
    cpuPercent: 7.5,
    interfaces: [port(1, 'ge-0/0/0: uplink to core', true), port(2, 'ge-0/0/1', true), port(3, 'ge-0/0/2', true), port(4, 'ge-0/0/3', false)],
    poll: { durationMs: 84.3 },
  });
}

describe.skipIf(!chromiumAvailable()).each(storeKinds())('Settings > Collectors and a device\'s source in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  let ingestKey: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    app = await startTestApp(kind, { data: createFixture() });
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await app.server.services.users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
    ingestKey = (await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'hq-collector', scope: 'ingest' })).key;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedInPage = (email: string): Promise<Page> => signInAs(browser, app.url, email, PASSWORD);
  /** The targets as the company's collector fetches them, credentials opened. */
  const fetched = async () => ((await app.request('/api/v1/collector/targets', { headers: { authorization: `Bearer ${ingestKey}` } })).body as { devices: JsonTree[] }).devices;
  /** The HTML the server sent for a path, as "view source" shows it. */
  const source = (page: Page, path: string) => page.evaluate(async (p) => (await fetch(p)).text(), path);

  it('adds a target through the form, lists it with its latest poll, edits it keeping its credentials, and deletes it; no secret in any page', async () => {
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings`);
    await page.getByRole('link', { name: 'Collectors' }).click();
    await page.getByRole('heading', { name: 'Collectors', level: 1 }).waitFor();
    await page.getByText('No collector targets yet').waitFor();
    // the command line for this server
    expect(await page.locator('#run-collector pre').textContent()).toContain(`netgraph collector --server ${app.url} --key-file collector.key`);

    // a key too short is refused next to its field; the other values stay, no typed secret comes back
    const add = page.locator('#add-target');
    await add.getByLabel('Device', { exact: true }).selectOption(IDS.acmeSwitch);
    await add.getByLabel('Agent address').fill('192.0.2.10');
    await add.getByLabel('User', { exact: true }).fill('netgraph');
    await add.getByLabel('Authentication', { exact: true }).selectOption('sha512');
    await add.getByLabel('Authentication password').fill('short');
    await add.getByLabel('Privacy', { exact: true }).selectOption('aes256b');
    await add.getByLabel('Privacy password').fill(PRIV_KEY);
    await add.getByLabel('Uplinks').fill('ge-0/0/0');
    await add.getByRole('button', { name: 'Add target' }).click();
    await page.locator('#add-target').getByText('snmp.authKey: must be a string of 8 to 255 characters').waitFor();
    expect(secretsIn(await page.content())).toEqual([]);
    const refused = page.locator('#add-target');
    expect(await refused.getByLabel('Agent address').inputValue()).toBe('192.0.2.10');
    expect(await refused.getByLabel('Authentication', { exact: true }).inputValue()).toBe('sha512');
    await refused.getByLabel('Authentication password').fill(AUTH_KEY);
    await refused.getByLabel('Privacy password').fill(PRIV_KEY);
    await refused.getByRole('button', { name: 'Add target' }).click();
    await page.getByText('Added target 192.0.2.10:161.').waitFor();

    const row = page.locator('#collector-targets tr', { hasText: '192.0.2.10' });
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('192.0.2.10:161 every 60 s v3, user netgraph authPriv · SHA-512 · AES-256 Core switch with tab HQ — Zürich M1A3-SW00-0001 Not polled yet Edit Delete');
    expect(secretsIn(await page.content())).toEqual([]);
    expect(secretsIn(await source(page, '/settings/collectors'))).toEqual([]);
    // the collector gets what was typed
    expect(await fetched()).toMatchObject([{ serialNumber: SERIALS.acmeSwitch, host: '192.0.2.10', uplinks: ['ge-0/0/0'], snmp: { version: '3', user: 'netgraph', authProtocol: 'sha512', authKey: AUTH_KEY, privProtocol: 'aes256b', privKey: PRIV_KEY } }]);

    // a second target, v2c for the access point, whose collector cannot reach it
    await page.locator('#add-target').getByLabel('Device', { exact: true }).selectOption(IDS.acmeAp);
    await page.locator('#add-target').getByLabel('Agent address').fill('192.0.2.20');
    await page.locator('#add-target').getByLabel('SNMP version').selectOption('2c');
    await page.locator('#add-target').getByLabel('Community').fill(COMMUNITY);
    await page.locator('#add-target').getByRole('button', { name: 'Add target' }).click();
    await page.getByText('Added target 192.0.2.20:161.').waitFor();

    // the collector polls: the switch answered in 84 ms, the access point did not answer
    const now = new Date().toISOString();
    const posted = await postReports(app, ingestKey, [polledSwitch(now), report(SERIALS.acmeAp, now, { poll: { durationMs: 4012, error: POLL_ERROR } })]);
    expect(posted.body).toMatchObject({ accepted: 2 });
    await page.reload();
    expect((await row.locator('.target-source').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Collector hq-collector, last poll just now, 84 ms, no error');
    const failing = page.locator('#collector-targets tr', { hasText: '192.0.2.20' });
    expect((await failing.locator('.target-source').textContent())?.replace(/\s+/g, ' ').trim()).toBe(`Collector hq-collector, last poll just now, 4,012 ms, last error ${POLL_ERROR}`);
    await screenshot(page, 'collectors');

    // the device page says where its reports come from
    await row.getByRole('link', { name: 'Core switch' }).click();
    await page.locator('[data-stat="source"]').waitFor();
    expect((await page.locator('[data-stat="source"] .stat-source').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Collector hq-collector, last poll just now, 84 ms, no error');
    await screenshot(page, 'device-source');
    await page.goto(`${app.url}/networks/${IDS.acmeHq}/devices/${IDS.acmeAp}`);
    expect(await page.locator('[data-stat="source"] [data-source-error]').textContent()).toBe(POLL_ERROR);

    // edit: a longer interval and another uplink; the credentials, not typed again, stay
    await page.goto(`${app.url}/settings/collectors`);
    await row.getByRole('link', { name: 'Edit' }).click();
    const edit = page.locator('#edit-target');
    expect(await edit.getByLabel('Agent address').inputValue()).toBe('192.0.2.10');
    expect(await edit.getByLabel('User', { exact: true }).inputValue()).toBe('netgraph');
    expect(await edit.getByLabel('Authentication password').inputValue()).toBe('');
    expect(secretsIn(await page.content())).toEqual([]);
    await edit.getByLabel('Poll interval (seconds)').fill('120');
    await edit.getByLabel('Uplinks').fill('ge-0/0/0, ge-0/0/1');
    await edit.getByRole('button', { name: 'Save target' }).click();
    await page.getByText('Saved target 192.0.2.10:161.').waitFor();
    expect(await row.locator('[data-interval]').textContent()).toBe('every 120 s');
    expect(await fetched()).toMatchObject([
      { host: '192.0.2.10', intervalSeconds: 120, uplinks: ['ge-0/0/0', 'ge-0/0/1'], snmp: { authKey: AUTH_KEY, privKey: PRIV_KEY } },
      { host: '192.0.2.20', snmp: { version: '2c', community: COMMUNITY } },
    ]);
    // changing the credentials' kind asks for them again
    await row.getByRole('link', { name: 'Edit' }).click();
    await page.locator('#edit-target').getByLabel('Security level').selectOption('authNoPriv');
    await page.locator('#edit-target').getByRole('button', { name: 'Save target' }).click();
    await page.locator('#edit-target').getByText('snmp.authKey: must be a string of 8 to 255 characters').waitFor();
    await page.goto(`${app.url}/settings/collectors`);

    // delete both
    page.on('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted target 192.0.2.10:161.').waitFor();
    await failing.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted target 192.0.2.20:161.').waitFor();
    await page.getByText('No collector targets yet').waitFor();
    expect(await fetched()).toEqual([]);
    const audit = await auditOf(app);
    expect(audit.map((entry) => entry.action).filter((action) => action.startsWith('collector_target.'))).toEqual([
      'collector_target.create', 'collector_target.create', 'collector_target.update', 'collector_target.delete', 'collector_target.delete',
    ]);
    expect(secretsIn(JSON.stringify(audit))).toEqual([]);
  }, 90_000);

  it('lets members read the page, shows them no forms, and answers their forged POSTs with 403', async () => {
    const admin = await app.server.services.webhooks.cliCaller('acme');
    const target = await app.server.services.collectorTargets.create(admin, { virtualDeviceUUID: IDS.acmeSwitch, host: '192.0.2.30', snmp: { version: '2c', community: COMMUNITY } });
    const page = await signedInPage('member@acme.example');
    await page.goto(`${app.url}/settings/collectors`);
    await page.getByText('Only admins can add or change them.').waitFor();
    await page.locator('#collector-targets tr', { hasText: '192.0.2.30' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add target' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(secretsIn(await page.content())).toEqual([]);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await page.evaluate(async ([token, id]) => {
      const post = async (path: string, fields: Record<string, string>) => (await fetch(path, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', ...fields }) })).status;
      return [
        await post('/settings/collectors', { virtualDeviceUUID: 'x', host: '192.0.2.31', version: '2c', community: 'public' }),
        await post(`/settings/collectors/${id}/edit`, { host: '192.0.2.32' }),
        await post(`/settings/collectors/${id}/delete`, {}),
        (await fetch(`/settings/collectors/${id}/edit`)).status,
      ];
    }, [csrf, target.UUID]);
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect((await app.server.services.collectorTargets.list(admin)).map((t) => t.host)).toEqual(['192.0.2.30']);
  });

  it('answers another company\'s target, and one that is not there, with 404', async () => {
    const globex = await app.server.services.webhooks.cliCaller('globex');
    const theirs = await app.server.services.collectorTargets.create(globex, { virtualDeviceUUID: IDS.globexAp, host: '198.51.100.9', snmp: { version: '2c', community: COMMUNITY } });
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings/collectors`);
    expect(await page.locator('#collector-targets').textContent()).not.toContain('198.51.100.9');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await page.evaluate(async ([token, id]) => [
      (await fetch(`/settings/collectors/${id}/edit`)).status,
      (await fetch('/settings/collectors/not-a-uuid/edit')).status,
      (await fetch(`/settings/collectors/${id}/delete`, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '' }) })).status,
      (await fetch(`/settings/collectors/${id}/edit`, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', host: 'x' }) })).status,
    ], [csrf, theirs.UUID]);
    expect(statuses).toEqual([404, 404, 404, 404]);
    expect((await app.server.services.collectorTargets.list(globex)).map((t) => t.host)).toEqual(['198.51.100.9']);
  });

  it('adds a discovery range through its form (a refusal named at its field, no secret back), for one collector, lists it and deletes it', async () => {
    const rangesOf = async (key: string) => ((await app.request('/api/v1/collector/ranges', { headers: { authorization: `Bearer ${key}` } })).body as { ranges: JsonTree[] }).ranges;
    const other = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'branch-collector', scope: 'ingest' });
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings/collectors`);
    await page.getByRole('link', { name: 'Discovery ranges' }).click();
    await page.getByRole('heading', { name: 'Discovery ranges', level: 1 }).waitFor();
    await page.getByText('No discovery ranges yet').waitFor();
    // the settings sidebar marks Collectors (the ranges are a part of it), not Discovered
    const current = async () => page.locator('aside.subnav a[aria-current="page"]').allInnerTexts();
    expect(await current()).toEqual(['Collectors']);

    const add = page.locator('#add-range');
    await add.getByLabel('Range (CIDR)').fill('10.0.0.0/8');
    await add.getByLabel('Swept by').selectOption({ label: 'hq-collector' });
    await add.getByLabel('Rate (addresses a second)').fill('25');
    await add.getByLabel('User', { exact: true }).fill('netgraph');
    await add.getByLabel('Authentication password').fill(AUTH_KEY);
    await add.getByLabel('Privacy password').fill(PRIV_KEY);
    await add.getByRole('button', { name: 'Add range' }).click();
    await page.locator('#add-range').getByText('range: 10.0.0.0/8 holds 16,777,216 addresses: sweep at most a /16').waitFor();
    expect(secretsIn(await page.content())).toEqual([]);
    const refused = page.locator('#add-range');
    expect(await refused.getByLabel('Rate (addresses a second)').inputValue()).toBe('25');
    await refused.getByLabel('Range (CIDR)').fill('10.0.0.0/24');
    await refused.getByLabel('Authentication password').fill(AUTH_KEY);
    await refused.getByLabel('Privacy password').fill(PRIV_KEY);
    await refused.getByRole('button', { name: 'Add range' }).click();
    await page.getByText('Added range 10.0.0.0/24.').waitFor();

    const row = page.locator('#collector-ranges tr', { hasText: '10.0.0.0/24' });
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('10.0.0.0/24 UDP 161 v3, user netgraph authPriv · SHA-256 · AES-128 25 addresses/s every 3600 s hq-collector Edit Delete');
    expect(secretsIn(await page.content())).toEqual([]);
    expect(secretsIn(await source(page, '/settings/collectors/ranges'))).toEqual([]);
    await screenshot(page, 'collector-ranges');
    // the chosen collector gets it with what was typed; another collector of the company does not
    expect(await rangesOf(ingestKey)).toMatchObject([{ range: '10.0.0.0/24', ratePerSecond: 25, snmp: { version: '3', user: 'netgraph', authKey: AUTH_KEY, privKey: PRIV_KEY } }]);
    expect(await rangesOf(other.key)).toEqual([]);

    // edit: the stored settings filled in, the credentials blank (kept); a refusal at its field; then the rate and every collector
    await row.getByRole('link', { name: 'Edit' }).click();
    const edit = page.locator('#edit-range');
    expect(await current()).toEqual(['Collectors']);
    expect(await edit.getByLabel('Range (CIDR)').inputValue()).toBe('10.0.0.0/24');
    expect(await edit.getByLabel('Rate (addresses a second)').inputValue()).toBe('25');
    expect(await edit.getByLabel('User', { exact: true }).inputValue()).toBe('netgraph');
    expect(await edit.getByLabel('Authentication password').inputValue()).toBe('');
    await edit.getByText('8 to 255 characters; stored encrypted, never shown. Leave blank to keep the stored one.').waitFor();
    expect(secretsIn(await page.content())).toEqual([]);
    await edit.getByLabel('Sweep interval (seconds)').fill('5');
    await edit.getByRole('button', { name: 'Save range' }).click();
    await page.locator('#edit-range [id="target-intervalSeconds-help"].field-error').waitFor();
    expect(await page.locator('#edit-range .field-error').count()).toBe(1);
    expect(await page.locator('#edit-range').getByLabel('Authentication password').inputValue()).toBe('');
    await page.locator('#edit-range').getByLabel('Sweep interval (seconds)').fill('7200');
    await page.locator('#edit-range').getByLabel('Rate (addresses a second)').fill('40');
    await page.locator('#edit-range').getByLabel('Swept by').selectOption({ label: 'Every collector of the company' });
    await page.locator('#edit-range').getByRole('button', { name: 'Save range' }).click();
    await page.getByText('Saved range 10.0.0.0/24.').waitFor();
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('10.0.0.0/24 UDP 161 v3, user netgraph authPriv · SHA-256 · AES-128 40 addresses/s every 7200 s Every collector Edit Delete');
    // both collectors now get it, with the credentials typed at creation
    for (const key of [ingestKey, other.key]) {
      expect(await rangesOf(key)).toMatchObject([{ range: '10.0.0.0/24', ratePerSecond: 40, intervalSeconds: 7200, snmp: { version: '3', user: 'netgraph', authKey: AUTH_KEY, privKey: PRIV_KEY } }]);
    }

    page.on('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted range 10.0.0.0/24.').waitFor();
    await page.getByText('No discovery ranges yet').waitFor();
    expect(await rangesOf(ingestKey)).toEqual([]);
    const audit = await auditOf(app);
    expect(audit.map((entry) => entry.action).filter((action) => action.startsWith('collector_range.'))).toEqual(['collector_range.create', 'collector_range.update', 'collector_range.delete']);
    expect(secretsIn(JSON.stringify(audit))).toEqual([]);

    // a member reads the page without the form; a forged POST is 403
    const member = await signedInPage('member@acme.example');
    await member.goto(`${app.url}/settings/collectors/ranges`);
    await member.getByText('Only admins can add, change or delete them.').waitFor();
    expect(await member.getByRole('button', { name: 'Add range' }).count()).toBe(0);
    const kept = await app.server.services.collectorRanges.create(await app.server.services.webhooks.cliCaller('acme'), { range: '10.2.0.0/24', snmp: { version: '2c', community: COMMUNITY } });
    await member.reload();
    await member.locator('#collector-ranges tr', { hasText: '10.2.0.0/24' }).waitFor();
    expect(await member.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    const csrf = await member.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await member.evaluate(async ([token, id]) => [
      (await fetch('/settings/collectors/ranges', { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', range: '10.1.0.0/24', version: '2c', community: 'public' }) })).status,
      (await fetch(`/settings/collectors/ranges/${id}/edit`)).status,
      (await fetch(`/settings/collectors/ranges/${id}/edit`, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', range: '10.3.0.0/24' }) })).status,
    ], [csrf, kept.UUID]);
    expect(statuses).toEqual([403, 403, 403]);
    expect((await app.server.services.collectorRanges.list(await app.server.services.webhooks.cliCaller('acme'))).map((r) => r.range)).toEqual(['10.2.0.0/24']);
  }, 90_000);

  it('marks a range whose collector key was revoked: the revocation warns of the ranges the key held, the range says no one sweeps it until another collector is chosen', async () => {
    const { apiKeys, collectorRanges, webhooks } = app.server.services;
    const site = await apiKeys.create({ companySlug: 'acme', label: 'site-b-collector', scope: 'ingest' });
    await collectorRanges.create(await webhooks.cliCaller('acme'), { range: '10.4.0.0/24', snmp: { version: '2c', community: COMMUNITY }, ratePerSecond: 20, collectorKeyUUID: site.id });
    const page = await signedInPage('admin@acme.example');
    // without a script, the confirmation page says it before the key is revoked
    await page.goto(`${app.url}/settings/integrations/api-keys/${site.id}/revoke`);
    await page.locator('.notice-warning', { hasText: 'This key holds 1 discovery range, which no collector sweeps once it is revoked' }).waitFor();
    // with one, the dialog revokes it and the list says what it left behind, linking to the ranges
    await page.goto(`${app.url}/settings/integrations/api-keys`);
    await page.locator(`tr[data-key-id="${site.id}"]`).getByRole('link', { name: 'Revoke' }).click();
    await page.locator('#revoke-dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('.notice-success', { hasText: 'Revoked site-b-collector.' }).waitFor();
    const warning = page.locator('.notice-warning', { hasText: 'held 1 discovery range' });
    expect((await warning.innerText()).replace(/\s+/g, ' ').trim()).toBe(
      'site-b-collector held 1 discovery range, which no collector sweeps now: they are not handed to another collector (their credentials were given for this one). Choose another collector for each, or delete them.',
    );
    await warning.getByRole('link', { name: '1 discovery range' }).click();
    await page.getByRole('heading', { name: 'Discovery ranges', level: 1 }).waitFor();
    const row = page.locator('#collector-ranges tr', { hasText: '10.4.0.0/24' });
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('10.4.0.0/24 UDP 161 v2c community 20 addresses/s every 3600 s site-b-collector Key revoked: swept by no one Edit Delete');
    expect(await row.locator('.badge-danger').getAttribute('data-range-status')).toBe('KEY_REVOKED');
    // a range every collector sweeps has no badge
    const every = page.locator('#collector-ranges tr', { hasText: '10.2.0.0/24' });
    expect(await every.locator('[data-range-status]').count()).toBe(0);
    expect(secretsIn(await page.content())).toEqual([]);
    await screenshot(page, 'collector-ranges');

    // its edit form keeps its collector (saving the rate alone does not hand it to every collector); another brings it back
    await row.getByRole('link', { name: 'Edit' }).click();
    const sweptBy = page.locator('#edit-range').getByLabel('Swept by');
    expect(await sweptBy.inputValue()).toBe(site.id);
    expect(await sweptBy.locator('option:checked').innerText()).toBe('site-b-collector (key revoked: swept by no one)');
    await page.locator('#edit-range').getByLabel('Rate (addresses a second)').fill('30');
    await page.locator('#edit-range').getByRole('button', { name: 'Save range' }).click();
    await page.getByText('Saved range 10.4.0.0/24.').waitFor();
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('10.4.0.0/24 UDP 161 v2c community 30 addresses/s every 3600 s site-b-collector Key revoked: swept by no one Edit Delete');
    await row.getByRole('link', { name: 'Edit' }).click();
    await page.locator('#edit-range').getByLabel('Swept by').selectOption({ label: 'hq-collector' });
    await page.locator('#edit-range').getByRole('button', { name: 'Save range' }).click();
    await page.getByText('Saved range 10.4.0.0/24.').waitFor();
    expect((await row.innerText()).replace(/\s+/g, ' ').trim()).toBe('10.4.0.0/24 UDP 161 v2c community 30 addresses/s every 3600 s hq-collector Edit Delete');
    expect(await row.locator('[data-range-status]').count()).toBe(0);
  }, 90_000);

  async function screenshot(page: Page, name: string): Promise<void> {
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }
});
