import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser } from './helpers/browser.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';
import { auditOf } from './helpers/writes.js';

// The "Done when": an admin adds a webhook in the dashboard, a device falls silent, a signed ALERT_DEVICE_OFFLINE arrives, the log shows it, Replay resends it.
const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const OFFLINE_AFTER_SECONDS = 5;

const alertOf = (r: ReceivedWebhook) => (JSON.parse(r.body) as { metadata: { alert_name: string } }).metadata.alert_name;

describe.skipIf(!chromiumAvailable()).each(storeKinds())('webhooks in the dashboard in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [app, browser, receiver] = await Promise.all([
      startTestApp(kind, { data: createFixture(), env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS) } }),
      launchBrowser(),
      startWebhookReceiver(),
    ]);
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await app.server.services.users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  async function signedInPage(email: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // closed when the test finishes, so its pages stop using the CPU the next tests need
    onTestFinished(() => context.close());
    const page = await context.newPage();
    await page.goto(`${app.url}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  }

  async function received(done: (list: ReceivedWebhook[]) => boolean, what: string): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + 4 * OFFLINE_AFTER_SECONDS * 1000;
    while (!done(receiver.received)) {
      if (Date.now() > deadline) throw new Error(`the receiver never got ${what}: ${receiver.received.map(alertOf).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return receiver.received;
  }

  it('adds a webhook, receives a signed DEVICE_OFFLINE of a silent device, shows it in the log and replays it', async () => {
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByLabel('Label').fill('Pager');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Device offline').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook added' }).waitFor();
    const secret = await page.locator('#new-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'Done, back to webhooks' }).click();
    await page.locator('#webhook-endpoints').waitFor();
    expect(await page.locator('#webhook-endpoints tbody tr').first().textContent()).toContain('Enabled');
    expect(await page.content()).not.toContain(secret);

    const ingestKey = await createScopedKey(app, 'ingest');
    const reported = await postReports(app, ingestKey, [report(SERIALS.acmeSwitch, new Date().toISOString())]);
    expect(reported.body).toMatchObject({ accepted: 1 });
    // silent from now: within the offline interval (plus the check's and the delivery's timers) it is reported offline
    const offline = (await received((list) => list.some((r) => alertOf(r) === 'ALERT_DEVICE_OFFLINE'), 'ALERT_DEVICE_OFFLINE')).find(
      (r) => alertOf(r) === 'ALERT_DEVICE_OFFLINE',
    ) as ReceivedWebhook;
    expect(() => new Webhook(secret).verify(offline.body, offline.headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(offline.body.replace('M1A3', 'M1A4'), offline.headers)).toThrow();
    const messageId = offline.headers['webhook-id'] as string;

    await page.reload();
    const row = page.locator(`#webhook-deliveries tr[data-message-id="${messageId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('DEVICE_OFFLINE');
    expect(await row.textContent()).toContain('200');
    await screenshot(page, 'webhooks');
    await row.getByRole('button', { name: 'Replay' }).click();
    await page.getByText(`Queued ${messageId} again.`).waitFor();
    const copies = await received((list) => list.filter((r) => r.headers['webhook-id'] === messageId).length >= 2, 'the replay');
    const [first, second] = copies.filter((r) => r.headers['webhook-id'] === messageId);
    expect(second?.body).toBe(first?.body);
    expect(() => new Webhook(secret).verify(second?.body ?? '', second?.headers ?? {})).not.toThrow();

    // test event, disable, delete (after the confirmation): each one audited
    page.on('dialog', (dialog) => void dialog.accept());
    await page.locator('#webhook-endpoints').getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Queued test event/).waitFor();
    await page.locator('#webhook-endpoints').getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled Pager.').waitFor();
    await page.locator('#webhook-endpoints').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted Pager.').waitFor();
    const actions = (await auditOf(app)).map((entry) => entry.action).filter((action) => action.startsWith('webhook.'));
    expect(actions).toEqual(['webhook.create', 'webhook.replay', 'webhook.test', 'webhook.update', 'webhook.delete']);
  });

  it('lets members read the page, shows them no forms, and answers their forged POSTs with 403', async () => {
    const page = await signedInPage('member@acme.example');
    await page.goto(`${app.url}/settings/integrations/webhooks`);
    await page.getByText('Only admins can add or change them.').waitFor();
    expect(await page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
    const acme = await app.server.services.webhooks.cliCaller('acme');
    const before = await app.server.services.webhooks.listEndpoints(acme);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const status = await page.evaluate(async (token) => {
      const body = new URLSearchParams({ _csrf: token, label: 'x', url: 'http://127.0.0.1:1/', alert_WAN_UP: 'on' });
      return (await fetch('/settings/integrations/webhooks', { method: 'POST', body })).status;
    }, csrf);
    expect(status).toBe(403);
    expect(await app.server.services.webhooks.listEndpoints(acme)).toEqual(before);
  });

  async function screenshot(page: Page, name: string): Promise<void> {
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }
});
