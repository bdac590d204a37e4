import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { chromiumAvailable, launchBrowser } from './helpers/browser.js';
import { ROOT } from './helpers/cli.js';
import { IDS, createFixture } from './helpers/fixture.js';

/** What the page loads from /client-test/ on the API's origin: the built client and gql.tada's ES modules, as a bundler would ship them. */
const FILES: Record<string, string> = {
  'gql.tada.mjs': 'node_modules/gql.tada/dist/gql-tada.mjs',
  'gql-tada-testing.mjs': 'node_modules/gql.tada/dist/gql-tada-testing.mjs',
  'graphql.web.mjs': 'node_modules/@0no-co/graphql.web/dist/graphql.web.mjs',
};

const PAGE = `<!doctype html>
<script type="importmap">{ "imports": { "gql.tada": "/client-test/gql.tada.mjs", "@0no-co/graphql.web": "/client-test/graphql.web.mjs" } }</script>
<script type="module">
  import { createClient, graphql } from '/client-test/client/index.js';
  const key = new URLSearchParams(location.search).get('key');
  const client = createClient({ url: location.origin, apiKey: key });
  const Both = graphql('query Both($mine: UUID!, $theirs: UUID!) { mine: network(UUID: $mine) { label } theirs: network(UUID: $theirs) { label } }');
  const waits = [];
  const limited = createClient({ url: location.origin, apiKey: key, pace: false, onWait: (w) => waits.push(w.reason) });
  const Device = graphql('query Device($uuid: UUID!) { virtualDevice(UUID: $uuid) { label } }');
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await limited.request(Device, { uuid: '${IDS.acmeAp}' })).status);
  window.done = { result: await client.request(Both, { mine: '${IDS.acmeHq}', theirs: '${IDS.globexHq}' }), statuses, waits };
</script>`;

// the client in a real browser against a running netgraph: only fetch, the page served from the API's origin
describe.runIf(chromiumAvailable())('the typed client in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([
      startTestApp('sqlite', { data: createFixture(), env: { RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '1' } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('sends typed documents, returns errors as values and waits out a 429', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.route(`${app.url}/client-test/**`, async (route) => {
      const name = new URL(route.request().url()).pathname.slice('/client-test/'.length);
      if (name === 'index.html') return route.fulfill({ contentType: 'text/html', body: PAGE });
      const file = name.startsWith('client/') ? path.join('dist', name) : FILES[name];
      if (file === undefined || !fs.existsSync(path.join(ROOT, file))) return route.fulfill({ status: 404 });
      return route.fulfill({ contentType: 'text/javascript', body: fs.readFileSync(path.join(ROOT, file), 'utf8') });
    });
    await page.goto(`${app.url}/client-test/index.html?key=${await app.createKey('acme')}`);
    const done = await page.waitForFunction(() => (globalThis as { done?: unknown }).done, undefined, { timeout: 20_000 }).then((h) => h.jsonValue());
    expect(failures).toEqual([]);
    expect(done).toMatchObject({
      result: { status: 200, data: { mine: { label: 'HQ — Zürich' }, theirs: null }, errors: [{ path: ['theirs'], extensions: { code: 'UNAUTHORIZED' } }] },
      statuses: [200, 200, 200, 200],
    });
    // two requests a second: the script never saw the 429 that its third request got, the client waited it out
    expect((done as { waits: string[] }).waits).toContain('rate-limit');
  });
});
