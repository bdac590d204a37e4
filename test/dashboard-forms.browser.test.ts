import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser } from './helpers/browser.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);

describe.skipIf(!chromiumAvailable()).each(storeKinds())('the dashboard\'s forms in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp(kind, { data: createFixture() }), launchBrowser()]);
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedInPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // closed when the test finishes, so its pages stop using the CPU the next tests need
    onTestFinished(() => context.close());
    const page = await context.newPage();
    await page.goto(`${app.url}/sign-in`);
    await page.getByLabel('Email').fill('admin@acme.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    // one store is enough for the README's pictures
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }

  it('adds a network with a VLAN and an SSID that the API then reads, and lists the writes in the audit log', async () => {
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Add network' }).click();
    await page.getByRole('heading', { name: 'Add network' }).waitFor();
    await page.getByLabel('Label').fill('Branch Bern');
    await page.getByLabel('Slug').fill('bern');
    await page.getByLabel('City').fill('Bern');
    await page.getByLabel('Region').fill('BE');
    await page.getByRole('button', { name: 'Add network' }).click();
    await page.getByRole('heading', { name: 'Branch Bern' }).waitFor();
    const networkUuid = new URL(page.url()).pathname.split('/')[2];

    await page.getByLabel('Name').fill('Staff');
    // the SSID form has a VLAN ID field too
    await page.locator('#vlan-new-id').fill('10');
    await page.getByRole('button', { name: 'Add VLAN' }).click();
    await page.locator('#vlans tbody tr', { hasText: 'Staff' }).waitFor();
    await page.getByLabel('SSID').fill('Bern Guest');
    await page.getByRole('button', { name: 'Add SSID' }).click();
    await page.locator('#ssids tbody tr', { hasText: 'Bern Guest' }).waitFor();

    // a refused value is shown next to its field, with the input kept
    await page.getByLabel('SSID').fill('Bern Guest');
    await page.getByRole('button', { name: 'Add SSID' }).click();
    await page.locator('#ssids .field-error').waitFor();
    expect(await page.locator('#ssids .field-error').innerText()).toBe('The network already has an SSID named "Bern Guest": pick another name.');
    expect(await page.getByLabel('SSID').inputValue()).toBe('Bern Guest');
    await screenshot(page, 'network-forms');

    const key = await app.createKey('acme', 'browser read-back');
    const res = await app.graphql('{ companyBySlug(slug: "acme") { networks { UUID label slug mailingAddress { city subdivisionCode } vlans { name vlanID isEnabled } ssids { ssid isEnabled } } } }', { key });
    const bern = (res.body.data.companyBySlug.networks as { slug: string }[]).find((n) => n.slug === 'bern');
    expect(bern).toEqual({
      UUID: networkUuid,
      label: 'Branch Bern',
      slug: 'bern',
      mailingAddress: { city: 'Bern', subdivisionCode: 'BE' },
      vlans: [{ name: 'Staff', vlanID: 10, isEnabled: true }],
      ssids: [{ ssid: 'Bern Guest', isEnabled: true }],
    });

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const actions = await page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')));
    // newest first; the read-back key's creation came after the writes
    expect(actions.slice(0, 4)).toEqual(['api_key.create', 'ssid.create', 'vlan.create', 'network.create']);
    expect(await page.locator('tbody tr').nth(1).innerText()).toContain('admin@acme.example');
    await screenshot(page, 'audit-log');
  });

  it('asks before deleting a VLAN: cancelling keeps it, confirming deletes it', async () => {
    const page = await signedInPage();
    await page.goto(`${app.url}/networks/${IDS.acmeHq}?edit=${IDS.acmeVlan}#vlans`);
    const row = page.locator(`#vlans tr[data-item="${IDS.acmeVlan}"]`);
    const messages: string[] = [];
    page.once('dialog', (dialog) => {
      messages.push(dialog.message());
      void dialog.dismiss();
    });
    await row.getByRole('button', { name: 'Delete' }).click();
    expect(messages).toEqual(['Delete the VLAN “Guest” (20)? This cannot be undone.']);
    // nothing was sent: the row is still being edited on the same page
    expect(await row.count()).toBe(1);
    const key = await app.createKey('acme', 'browser delete check');
    const vlanNames = async () => {
      const res = await app.graphql(`{ companyBySlug(slug: "acme") { networks { UUID vlans { name vlanID } } } }`, { key });
      const network = (res.body.data.companyBySlug.networks as { UUID: string; vlans: { name: string; vlanID: number }[] }[]).find((n) => n.UUID === IDS.acmeHq);
      return network?.vlans.map((v) => `${v.name} ${v.vlanID}`);
    };
    expect(await vlanNames()).toContain('Guest 20');

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await vlanNames()).not.toContain('Guest 20');
  });

  it('asks before deleting a network, then lands on the networks list without it', async () => {
    const page = await signedInPage();
    const { key } = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'browser network delete', scope: 'read_write' });
    const created = await app.graphql('mutation { createNetwork(input: { label: "Pop-up store", slug: "popup" }) { network { UUID } } }', { key });
    expect(created.status).toBe(200);
    const uuid = created.body.data?.createNetwork?.network?.UUID as string | undefined;
    expect(uuid).toBeDefined();
    await page.goto(`${app.url}/networks/${uuid}/edit`);
    const messages: string[] = [];
    page.once('dialog', (dialog) => {
      messages.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete network' }).click();
    await page.waitForURL(`${app.url}/networks`);
    expect(messages).toEqual(['Delete the network “Pop-up store” with its devices, VLANs, SSIDs and clients? This cannot be undone.']);
    expect(await page.locator('body').innerText()).not.toContain('Pop-up store');
  });
});
