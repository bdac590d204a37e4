import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { meterSignature } from '../src/features/webhook/webhook.meter.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser, signedInPage as signInAs } from './helpers/browser.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { startSmtpReceiver } from './helpers/smtp-receiver.js';
import type { SmtpReceiver } from './helpers/smtp-receiver.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';
import { auditOf } from './helpers/writes.js';

// Issue 32's Settings > Alert receivers: an admin makes a receiver with a webhook (Meter's body), a Slack and an email target, a device falls silent, all three get it.
const PASSWORD = 'correct horse battery';
const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);
const OFFLINE_AFTER_SECONDS = 5;
const SLACK_SECRET = 'T0SECRET/B0SECRET/xoxSecretPart';

describe.skipIf(!chromiumAvailable()).each(storeKinds())('alert receivers in the dashboard in Chromium on %s', (kind) => {
  let app: TestApp;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    [receiver, smtp, browser] = await Promise.all([startWebhookReceiver(), startSmtpReceiver(), launchBrowser()]);
    app = await startTestApp(kind, {
      data: createFixture(),
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS), SMTP_URL: smtp.url, SMTP_FROM: 'alerts@netgraph.test' },
    });
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await app.server.services.users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
    await smtp?.close();
  });

  const signedInPage = (email: string): Promise<Page> => signInAs(browser, app.url, email, PASSWORD);

  async function received(done: (list: ReceivedWebhook[]) => boolean, what: string): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + 4 * OFFLINE_AFTER_SECONDS * 1000;
    while (!done(receiver.received)) {
      if (Date.now() > deadline) throw new Error(`the receiver never got ${what}: ${receiver.received.map((r) => r.path).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return receiver.received;
  }

  it('adds a webhook with Meter’s body, a receiver with webhook, Slack and email targets, delivers to all three, removes and deletes', async () => {
    const page = await signedInPage('admin@acme.example');
    await page.goto(`${app.url}/settings/integrations/webhooks`);
    await page.getByLabel('Label').fill('Pager');
    await page.getByLabel('URL').fill(`${receiver.url}/pager`);
    await page.getByLabel('Body').selectOption('METER');
    await page.getByLabel('WAN down').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.locator('#new-secret').inputValue();
    await page.getByRole('link', { name: 'Done, back to webhooks' }).click();
    expect(await page.locator('#webhook-endpoints tbody tr').first().textContent()).toContain('Meter');
    const acme = await app.server.services.webhooks.cliCaller('acme');
    expect((await app.server.services.webhooks.listEndpoints(acme)).map((e) => [e.label, e.payloadFormat])).toEqual([['Pager', 'METER']]);

    await page.getByRole('link', { name: 'Alert receivers' }).click();
    await page.getByRole('heading', { name: 'Alert receivers', level: 1 }).waitFor();
    await page.getByText('No alert receivers yet').waitFor();
    const add = page.locator('#add-receiver');
    await add.getByLabel('Label').fill('On-call');
    await add.getByLabel('Device offline').check();
    // the first target: nothing chosen but an empty address is refused next to its field, the values kept
    await add.getByLabel('Target type').selectOption('EMAIL');
    await add.getByRole('button', { name: 'Add receiver' }).click();
    await page.locator('#add-receiver').getByText('emailAddress must be an email address').waitFor();
    expect(await page.locator('#add-receiver').getByLabel('Label').inputValue()).toBe('On-call');
    await page.locator('#add-receiver').getByLabel('Target type').selectOption('WEBHOOK');
    await page.locator('#add-receiver').getByLabel('Webhook', { exact: true }).selectOption({ label: 'Pager' });
    await page.locator('#add-receiver').getByRole('button', { name: 'Add receiver' }).click();
    await page.getByText('Added On-call.').waitFor();

    const card = page.locator('section.receiver', { hasText: 'On-call' });
    await card.getByLabel('Target type').selectOption('SLACK');
    await card.getByLabel('Slack incoming-webhook URL').fill(`${receiver.url}/slack/${SLACK_SECRET}`);
    await card.getByRole('button', { name: 'Add target' }).click();
    await page.getByText('Added a target to On-call.').waitFor();
    await page.locator('section.receiver', { hasText: 'On-call' }).getByLabel('Target type').selectOption('EMAIL');
    await page.locator('section.receiver', { hasText: 'On-call' }).getByLabel('Email address').fill('noc@example.com');
    await page.locator('section.receiver', { hasText: 'On-call' }).getByRole('button', { name: 'Add target' }).click();
    await page.locator('section.receiver tr', { hasText: 'noc@example.com' }).waitFor();
    const rows = page.locator('section.receiver table tbody tr');
    expect(await rows.allTextContents()).toEqual([
      expect.stringMatching(/Webhook\s+Pager\s*http:\/\/127\.0\.0\.1:\d+\/\S*pager\s+Enabled/),
      expect.stringMatching(/Slack\s+Incoming webhook http:\/\/127\.0\.0\.1:\d+\/…\s+Enabled/),
      expect.stringMatching(/Email\s+noc@example\.com\s+Enabled/),
    ]);
    // the Slack URL is a secret: never in a page, nor in what the API answers
    expect(await page.content()).not.toContain('xoxSecretPart');
    const [listed] = await app.server.services.alerts.listReceivers(acme);
    expect(JSON.stringify(listed)).not.toContain('xoxSecretPart');
    expect(listed?.targets.map((t) => t.type)).toEqual(['WEBHOOK', 'SLACK', 'EMAIL']);
    await screenshot(page, 'alert-receivers');

    // a device falls silent: Pager gets Meter's signed body, Slack its message, the address its email
    const ingestKey = await createScopedKey(app, 'ingest');
    expect((await postReports(app, ingestKey, [report(SERIALS.acmeSwitch, new Date().toISOString())])).body).toMatchObject({ accepted: 1 });
    const got = await received((list) => list.some((r) => r.path.endsWith('/pager')) && list.some((r) => r.path.includes('/slack/')), 'the pager and Slack deliveries');
    const pager = got.find((r) => r.path.endsWith('/pager')) as ReceivedWebhook;
    expect(pager.headers['x-meter-signature']).toBe(meterSignature(secret, pager.body));
    expect(JSON.parse(pager.body)).toMatchObject({ metadata: { alert_name: 'Device offline' }, data: { serial_number: SERIALS.acmeSwitch } });
    expect(got.find((r) => r.path.includes('/slack/'))?.path).toMatch(new RegExp(`/slack/${SLACK_SECRET}$`));
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).toEqual(['noc@example.com']);
    expect(mail?.subject).toContain('Device offline');

    // remove targets down to one; the last one stays (a receiver needs one); delete the receiver
    page.on('dialog', (dialog) => void dialog.accept());
    for (const [type, left] of [['Slack', 2], ['Email', 1]] as const) {
      await page.locator('section.receiver tr', { hasText: type }).getByRole('button', { name: 'Remove' }).click();
      await page.getByText('Removed a target of On-call.').waitFor();
      await expect.poll(() => rows.count()).toBe(left);
    }
    await page.locator('section.receiver tr', { hasText: 'Pager' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByText('A receiver needs at least one target').waitFor();
    await page.getByRole('button', { name: 'Delete receiver' }).click();
    await page.getByText('Deleted On-call.').waitFor();
    expect(await app.server.services.alerts.listReceivers(acme)).toEqual([]);
    const actions = (await auditOf(app)).map((entry) => entry.action).filter((action) => action.startsWith('alert_receiver.'));
    expect(actions).toEqual(['alert_receiver.create', 'alert_receiver.update', 'alert_receiver.update', 'alert_receiver.update', 'alert_receiver.update', 'alert_receiver.delete']);
    expect(JSON.stringify(await auditOf(app))).not.toContain('xoxSecretPart');
  }, 90_000);

  it('lets members read the page, shows them no forms, and answers their forged POSTs with 403', async () => {
    const acme = await app.server.services.webhooks.cliCaller('acme');
    const pager = (await app.server.services.webhooks.listEndpoints(acme))[0];
    await app.server.services.alerts.createReceiver(acme, { label: 'Night shift', targets: [{ type: 'WEBHOOK', webhookEndpointId: pager?.id ?? '' }], rules: [{ alert: 'WAN_DOWN', networks: null }] });
    const page = await signedInPage('member@acme.example');
    await page.goto(`${app.url}/settings/integrations/alert-receivers`);
    await page.getByText('Only admins can add or change them.').waitFor();
    await page.getByRole('heading', { name: 'Night shift' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add receiver' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    const before = await app.server.services.alerts.listReceivers(acme);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const statuses = await page.evaluate(async ([token, receiverId]) => {
      const post = async (path: string, fields: Record<string, string>) => (await fetch(path, { method: 'POST', body: new URLSearchParams({ _csrf: token ?? '', ...fields }) })).status;
      return [
        await post('/settings/integrations/alert-receivers', { label: 'x', alert_WAN_UP: 'on', targetType: 'EMAIL', emailAddress: 'x@example.com' }),
        await post(`/settings/integrations/alert-receivers/${receiverId}/delete`, {}),
      ];
    }, [csrf, before[0]?.id]);
    expect(statuses).toEqual([403, 403]);
    expect(await app.server.services.alerts.listReceivers(acme)).toEqual(before);
  });

  async function screenshot(page: Page, name: string): Promise<void> {
    if (kind !== 'sqlite') return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }
});
