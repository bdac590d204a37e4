import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateDataset, generateDemoDataset } from '../src/tools/demo/dataset.js';
import type { ImportCompany } from '../src/platform/import/import.schema.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser } from './helpers/browser.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';

const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const DEMO = generateDemoDataset();
// the second generated company, so its serial numbers differ from the demo company's
const GLOBEX = generateDataset({ companies: 2, networksPerCompany: 1, devicesPerNetwork: 3, clientsPerNetwork: 2, seed: 7, slugPrefix: 'globex' }).companies[1] as ImportCompany;
const ACME_HQ = DEMO.companies[0]?.networks.find((n) => n.label === 'Headquarters')?.UUID as string;

describe.skipIf(!chromiumAvailable()).each(storeKinds())('the dashboard in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    // webhooks to the test's own receivers on 127.0.0.1
    [app, browser] = await Promise.all([startTestApp(kind, { data: { companies: [...DEMO.companies, GLOBEX] }, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } }), launchBrowser()]);
    const users = app.server.services.users;
    await users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
    await users.create({ companySlug: GLOBEX.slug, email: 'admin@globex.example', role: 'admin', password: PASSWORD });
    await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'billing-sync' });
  });
  // each test's profiles are closed after it, so their pages stop using the CPU the next test needs
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await browser?.close();
    await app?.close();
  });

  /** A fresh browser profile (no cookies) on a laptop-sized window. */
  async function openPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    contexts.push(context);
    return context.newPage();
  }

  async function signInAs(page: Page, email: string): Promise<void> {
    await page.goto(`${app.url}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    // one store is enough for the README's pictures
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }

  const apiStatus = async (key: string) => (await app.graphql('{ companyBySlug(slug: "acme") { name } }', { key })).status;

  it('sends a signed-out visitor to sign-in, and back to the page asked for afterwards', async () => {
    const page = await openPage();
    await page.goto(`${app.url}/networks/${ACME_HQ}`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    expect(await page.locator('table').count()).toBe(0);
    await page.getByLabel('Email').fill('member@acme.example');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').innerText()).toBe('Wrong email or password.');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Headquarters' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/networks/${ACME_HQ}`);
  });

  it('signs in and browses the networks and one network', async () => {
    const page = await openPage();
    await signInAs(page, 'admin@acme.example');
    expect(new URL(page.url()).pathname).toBe('/networks');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(4);
    expect(await rows.locator('td:first-child').allInnerTexts()).toEqual(['Branch Office', 'Headquarters', 'Lab', 'Warehouse']);
    const hq = rows.filter({ hasText: 'Headquarters' });
    expect(await hq.locator('td').allInnerTexts()).toEqual(['Headquarters', 'headquarters', 'San Francisco, CA', 'Active', '8', expect.stringMatching(/^\d of 8$/)]);
    await screenshot(page, 'networks');

    await page.getByRole('link', { name: 'Headquarters' }).click();
    await page.getByRole('heading', { name: 'Headquarters' }).waitFor();
    const devices = page.locator('#devices tbody tr');
    expect(await devices.count()).toBe(8);
    expect(await devices.first().locator('td').allInnerTexts()).toEqual(['AP 01', 'Access point', 'AP-W7', expect.stringMatching(/^(Online|Offline)$/), expect.stringMatching(/^[A-Z0-9]+(-[A-Z0-9]+)+$/), expect.stringMatching(/^(Connected|Disconnected)$/)]);
    const clients = page.locator('#clients tbody tr');
    expect(await clients.count()).toBe(12);
    const lastSeen = clients.first().locator('time');
    expect(await lastSeen.getAttribute('title')).toMatch(/^2026-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await lastSeen.innerText()).toMatch(/ago$|^just now$/);
    expect(await page.locator('#vlans tbody tr').count()).toBe(2);
    expect(await page.locator('#ssids tbody tr').allInnerTexts()).toEqual([expect.stringContaining('Acme-Corp'), expect.stringContaining('Acme-Guest')]);
    // docs/screenshots/network.png shows the page with reported data: dashboard-reports.browser.test.ts takes it
  });

  it('adds a key shown once with a copy button, which works on the API and is gone after a reload', async () => {
    const page = await openPage();
    await signInAs(page, 'admin@acme.example');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/integrations/api-keys');
    await page.getByLabel('Label').fill('browser-test');
    await page.getByRole('button', { name: 'Add API key' }).click();
    await page.getByRole('heading', { name: 'API key created' }).waitFor();
    expect(await page.locator('.notice-warning').innerText()).toContain('This is the only time it is shown');
    const shown = await page.locator('#new-key').inputValue();
    expect(shown).toMatch(/^ngk_[A-Za-z0-9]{38}$/);

    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    // evaluated in the page, as text: the tests are compiled without the DOM's types
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(shown);
    expect(await apiStatus(copied)).toBe(200);

    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/integrations/api-keys');
    expect(await page.content()).not.toContain(copied);
    const row = page.locator('tbody tr', { hasText: 'browser-test' });
    expect(await row.locator('td').nth(1).innerText()).toBe(`${copied.slice(0, 10)}…`);
    expect(await row.locator('td').nth(2).innerText()).toBe('Read only');
    // the last-used time and address are written in the background within about a second
    await expect
      .poll(async () => {
        await page.reload();
        return row.locator('td').nth(6).innerText();
      }, { timeout: 15_000, interval: 500 })
      .toBe('just now\nfrom 127.0.0.1');
    expect(await page.content()).not.toContain(copied);
  });

  it('revokes a key after a confirmation, and the API answers 401 at once', async () => {
    const page = await openPage();
    await signInAs(page, 'admin@acme.example');
    await page.goto(`${app.url}/settings/integrations/api-keys`);
    await page.getByLabel('Label').fill('to-revoke');
    // a short lifetime and the test's own address: the list warns of the expiry, the API admits it from here
    await page.getByLabel('Expires').fill('72h');
    await page.getByLabel('Allowed from').fill('127.0.0.0/8 ::1');
    await page.getByRole('button', { name: 'Add API key' }).click();
    const key = await page.locator('#new-key').inputValue();
    await page.getByRole('link', { name: 'Done, back to API keys' }).click();
    const row = page.locator('tbody tr', { hasText: 'to-revoke' });
    expect(await row.locator('[data-expiry-warning]').innerText()).toBe('Expires in 2 days');
    expect(await row.locator('td').nth(5).innerText()).toBe('127.0.0.0/8 ::1/128');

    // its page warns of the expiry too; no expiry alert yet, as no rule of acme takes API_KEY_EXPIRING
    await row.getByRole('link', { name: 'to-revoke', exact: true }).click();
    await page.getByRole('heading', { name: 'to-revoke' }).waitFor();
    expect(await page.locator('[data-stat="expiry"] [data-expiry-warning]').innerText()).toBe('Expires in 2 days');
    expect(await page.locator('[data-stat="allowed"]').innerText()).toContain('127.0.0.0/8 ::1/128');
    expect(await page.locator('[data-expiry-alert]').count()).toBe(0);
    // a rule that takes it: the alert is delivered once, and the key's page says when it went out
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const { webhooks, webhookWork } = app.server.services;
    await webhooks.createEndpoint(await webhooks.cliCaller('acme'), { label: 'key expiry', url: receiver.url, rules: [{ alert: 'API_KEY_EXPIRING' }] });
    await webhookWork.dispatcher.checkExpiringKeys();
    await receiver.waitFor(1);
    expect((JSON.parse(receiver.received[0]?.body ?? '{}') as { data: { label: string } }).data.label).toBe('to-revoke');
    await page.reload();
    expect(await page.locator('[data-expiry-alert]').innerText()).toBe('Expiry alert sent just now');
    expect(await page.locator('[data-expiry-alert] time').getAttribute('datetime')).toBe((await app.server.services.apiKeys.find(key.slice(0, 10))).expiryAlertedAt);
    await page.goto(`${app.url}/settings/integrations/api-keys`);

    await row.getByRole('link', { name: 'Revoke', exact: true }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('heading').innerText()).toBe('Revoke “to-revoke”?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.isVisible()).toBe(false);
    expect(await apiStatus(key)).toBe(200);

    await row.getByRole('link', { name: 'Revoke', exact: true }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Requests with it now get 401.').waitFor();
    expect(await apiStatus(key)).toBe(401);
    expect(await row.locator('td').nth(7).innerText()).toBe('Revoked');
    expect(await row.getByRole('link', { name: 'Revoke', exact: true }).count()).toBe(0);
    await screenshot(page, 'api-keys');

    // its page: the request before the revocation (200) and the one after (401), and the chart of them per hour by status
    await app.server.services.requestLog.flush();
    await row.getByRole('link', { name: 'to-revoke', exact: true }).click();
    await page.getByRole('heading', { name: 'to-revoke' }).waitFor();
    const requests = page.locator('tbody tr[data-request-id]');
    expect(await requests.count()).toBe(2);
    expect(await requests.nth(0).locator('td').nth(1).innerText()).toBe('401');
    expect(await requests.nth(0).locator('td').nth(4).innerText()).toBe('UNAUTHENTICATED');
    expect(await requests.nth(1).locator('td').nth(1).innerText()).toBe('200');
    expect(await requests.nth(1).locator('td').nth(3).innerText()).toBe('companyBySlug');
    // revoked now: no expiry warning any more, and the alert that went out is still told
    expect(await page.locator('[data-stat="status"]').innerText()).toContain('Revoked');
    expect(await page.locator('[data-stat="expiry"] [data-expiry-warning]').count()).toBe(0);
    expect(await page.locator('[data-expiry-alert]').innerText()).toBe('Expiry alert sent just now');
    await page.locator('#chart-key-requests[data-drawn="true"]').waitFor();
    expect(await page.locator('#chart-key-requests .u-legend').innerText()).toMatch(/401[\s\S]*200/);
    // off the chart, the legend reads the newest bucket (not a row of dashes): the 401 was the last request
    const [time, ...counts] = await page.locator('#chart-key-requests .u-legend .u-series .u-value').allInnerTexts();
    expect(time).not.toBe('—');
    expect(counts).toHaveLength(2);
    for (const count of counts) expect(count).toMatch(/^\d+ requests?$/);
    expect(counts).toContain('1 request');
    // each status in its class's colour: 200 green, 401 (a refused key) pink
    const markers = await page.locator('#chart-key-requests .u-legend .u-series').evaluateAll((rows) =>
      // in the page: its window's getComputedStyle (this file is typed without the DOM's lib)
      rows.map((row) => [row.querySelector('.u-label')?.textContent, (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(row.querySelector('.u-marker')).backgroundColor]),
    );
    expect(markers).toEqual(expect.arrayContaining([['401', 'rgb(219, 39, 119)'], ['200', 'rgb(22, 163, 74)']]));
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'Clear filters' }).waitFor();
    expect(await requests.count()).toBe(1);
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#chart-key-requests[data-drawn="true"]').waitFor();
    await screenshot(page, 'api-key-requests');
  }, 60_000);

  it('shows a member the keys, but no way to add or revoke, and refuses a forged form', async () => {
    const page = await openPage();
    await signInAs(page, 'member@acme.example');
    await page.goto(`${app.url}/settings/integrations/api-keys`);
    expect(await page.locator('tbody tr', { hasText: 'billing-sync' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Add API key' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Revoke' }).count()).toBe(0);
    expect(await page.getByRole('status').innerText()).toContain('Only admins can add or revoke API keys.');

    // even a form built in the member's own page, with the member's valid CSRF token, is refused
    await page.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/settings/integrations/api-keys';
      form.innerHTML = '<input name="_csrf"><input name="label" value="member-key">';
      form.elements._csrf.value = document.querySelector('input[name="_csrf"]').value;
      document.body.append(form);
      form.submit();
    })()`);
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect(await page.locator('.lead').innerText()).toBe('Only admins can add or revoke API keys. Ask an admin of your company.');
    expect((await app.server.services.apiKeys.list('acme')).map((k) => k.label)).not.toContain('member-key');
  });

  it('does not show another company\'s pages when a user edits the URL', async () => {
    const acmeKey = (await app.server.services.apiKeys.list('acme'))[0]?.id as string;
    const page = await openPage();
    await signInAs(page, 'admin@globex.example');
    expect(await page.locator('tbody tr td:first-child').allInnerTexts()).toEqual(['Headquarters']);

    const response = await page.goto(`${app.url}/networks/${ACME_HQ}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('.lead').innerText()).toBe('There is no network at this address in your company.');
    expect(await page.content()).not.toContain('San Francisco');

    const revoke = await page.goto(`${app.url}/settings/integrations/api-keys/${acmeKey}/revoke`);
    expect(revoke?.status()).toBe(404);
    await page.goto(`${app.url}/settings/integrations/api-keys`);
    expect(await page.locator('tbody tr').count()).toBe(0);
    expect(await page.getByText('No API keys yet').count()).toBe(1);
  });
});
