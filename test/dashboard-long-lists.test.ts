import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import type { DashboardClient } from './helpers/dashboard.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Issue 32's long lists: a network's clients and a switch's MAC table are searched and paged by the server
// (networkClientsPage, switchMACTablePage), so a network with 2,000 clients renders one page of 50.

const PASSWORD = 'correct horse battery';
const COUNT = 2000;
const PAGE_SIZE = 50;
/** Client i: 3c:22:fb:0a:HH:LL with i = HHLL, at 10.20.H.L, named host-<i>.corp (i zero-padded to 4), on port i % 48 + 1, VLAN 10 or 20. */
const mac = (i: number) => `3c:22:fb:0a:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;
const host = (i: number) => `host-${String(i).padStart(4, '0')}.corp`;
const clients = Array.from({ length: COUNT }, (_, i) => ({ macAddress: mac(i), ip: `10.20.${i >> 8}.${i & 0xff}`, hostname: host(i), vlanID: 10, portNumber: (i % 48) + 1 }));
const macTable = Array.from({ length: COUNT }, (_, i) => ({ macAddress: mac(i), vlanID: i % 2 === 0 ? 10 : 20, portNumber: (i % 48) + 1 }));

const rowsOf = (text: string, attribute: string) => [...text.matchAll(new RegExp(`<tr data-${attribute}="([0-9a-f:]+)">`, 'g'))].map((m) => m[1]);

describe.each(storeKinds())('long lists of the dashboard over HTTP on %s', (kind) => {
  let app: TestApp;
  let client: DashboardClient;
  const networkPage = `/networks/${IDS.acmeHq}`;
  const switchPage = `/networks/${IDS.acmeHq}/devices/${IDS.acmeSwitch}`;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    await app.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    client = createDashboardClient(app);
    expect((await signIn(client, 'admin@acme.example', PASSWORD)).status).toBe(303);
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), [report(SERIALS.acmeSwitch, new Date().toISOString(), { clients, macTable })]);
    expect(posted.body).toMatchObject({ accepted: 1, rejected: [] });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  /** The read statements `path` runs: the page's reads through the API's executor. */
  async function readsOf(path: string): Promise<string[]> {
    const store = app.server.store;
    const selectRow = store.selectRow.bind(store);
    const ran: string[] = [];
    store.selectRow = (text, params, options) => {
      ran.push(text);
      return selectRow(text, params, options);
    };
    try {
      expect((await client.get(path)).status).toBe(200);
    } finally {
      store.selectRow = selectRow;
    }
    return ran;
  }

  it('renders one page of 50 of the 2,000 connected clients in one read, and pages to the last client', async () => {
    // the network (with the client page) and its charts: two statements, with a search and on any page alike
    const reads = await readsOf(networkPage);
    expect(reads).toHaveLength(2);
    expect(reads[0]).toContain('LIMIT');
    expect(await readsOf(`${networkPage}?q=host-19&page=2`)).toEqual(reads);
    // the switch's page: one statement with its MAC table's page
    expect(await readsOf(`${switchPage}?q=3c22&page=3`)).toHaveLength(1);
    const first = await client.get(networkPage);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`<h2>Connected clients <span class="count">${COUNT}</span></h2>`);
    expect(rowsOf(first.text, 'client')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(i)));
    expect(first.text).toContain(`1–50 of ${COUNT} · page 1 of 40`);
    expect(first.text).toContain(`href="${networkPage}?page=2#clients" rel="next"`);
    // the whole page is far smaller than 2,000 rows would be
    expect(first.text.length).toBeLessThan(200_000);

    const last = await client.get(`${networkPage}?page=40`);
    expect(rowsOf(last.text, 'client')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(COUNT - PAGE_SIZE + i)));
    expect(last.text).toContain(host(COUNT - 1));
    expect(last.text).toContain(`1951–2000 of ${COUNT} · page 40 of 40`);
    expect(last.text).not.toContain('rel="next"');
    expect(last.text).toContain(`href="${networkPage}?page=39#clients" rel="prev"`);
    // past the last page: a link back to it, not an error
    const past = await client.get(`${networkPage}?page=41`);
    expect(past.status).toBe(200);
    expect(past.text).toContain('Page 41 is past the last page');
    expect(past.text).toContain(`href="${networkPage}?page=40#clients"`);
  });

  it('finds a client by MAC address prefix in any notation, by IP address prefix and by host name substring', async () => {
    // 3C-22-FB-0A-07 is the prefix of clients 0x700 to 0x7cf (1792 to 1999): 208 of them, on 5 pages
    const byMac = await client.get(`${networkPage}?q=${encodeURIComponent('3C-22-FB-0A-07')}`);
    expect(byMac.status).toBe(200);
    expect(rowsOf(byMac.text, 'client')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(0x700 + i)));
    expect(byMac.text).toContain(`1–50 of 208 (of ${COUNT}) · page 1 of 5`);
    const lastOfMac = await client.get(`${networkPage}?q=${encodeURIComponent('3C-22-FB-0A-07')}&page=5`);
    expect(rowsOf(lastOfMac.text, 'client')).toEqual(Array.from({ length: 8 }, (_, i) => mac(COUNT - 8 + i)));
    expect(lastOfMac.text).toContain(`href="${networkPage}?q=3C-22-FB-0A-07&amp;page=4#clients" rel="prev"`);
    // one client by its whole address, without separators
    expect(rowsOf((await client.get(`${networkPage}?q=3c22fb0a04d2`)).text, 'client')).toEqual([mac(0x4d2)]);
    // host names hold the text, any case: host-1230.corp to host-1239.corp
    const byHost = await client.get(`${networkPage}?q=${encodeURIComponent('HOST-123')}`);
    expect(rowsOf(byHost.text, 'client')).toEqual(Array.from({ length: 10 }, (_, i) => mac(1230 + i)));
    expect(rowsOf((await client.get(`${networkPage}?q=${encodeURIComponent('1999.corp')}`)).text, 'client')).toEqual([mac(1999)]);
    // IP addresses start with it
    expect(rowsOf((await client.get(`${networkPage}?q=10.20.7.20`)).text, 'client')).toEqual([0x714, 0x7c8, 0x7c9, 0x7ca, 0x7cb, 0x7cc, 0x7cd, 0x7ce, 0x7cf].map(mac));
  });

  it('takes a search as text: LIKE wildcards match themselves, markup is escaped, too long a search is refused with a message', async () => {
    for (const wildcard of ['%', '_', 'host_', '!']) {
      const res = await client.get(`${networkPage}?q=${encodeURIComponent(wildcard)}`);
      expect(res.status).toBe(200);
      expect(rowsOf(res.text, 'client')).toEqual([]);
      expect(res.text).toContain('No client matches');
    }
    const hostile = await client.get(`${networkPage}?q=${encodeURIComponent('"><script>x</script>')}`);
    expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(hostile.text).not.toContain('<script>x');
    const long = await client.get(`${networkPage}?q=${'a'.repeat(65)}`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('Search for at most 64 characters');
    // the list is shown unsearched below the refused search
    expect(rowsOf(long.text, 'client')).toHaveLength(PAGE_SIZE);
    for (const page of ['0', '-1', 'x', '1.5', '99999999']) expect((await client.get(`${networkPage}?page=${page}`)).status, page).toBe(404);
  });

  it("pages and searches the switch's MAC table of 2,000 entries by MAC address, port and VLAN", async () => {
    const first = await client.get(switchPage);
    expect(first.text).toContain(`<h2>MAC table <span class="count">${COUNT}</span></h2>`);
    expect(rowsOf(first.text, 'mac')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(i)));
    const last = await client.get(`${switchPage}?page=40`);
    expect(rowsOf(last.text, 'mac')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(COUNT - PAGE_SIZE + i)));
    // port 48: every 48th entry from 47, 41 of them
    const byPort = await client.get(`${switchPage}?q=48`);
    expect(byPort.text).toContain(`1–41 of 41 (of ${COUNT}) · page 1 of 1`);
    expect(rowsOf(byPort.text, 'mac')).toEqual(Array.from({ length: 41 }, (_, i) => mac(47 + 48 * i)));
    // VLAN 20: the odd entries, 1000 on 20 pages
    const byVlan = await client.get(`${switchPage}?q=20&page=20`);
    expect(rowsOf(byVlan.text, 'mac')).toEqual(Array.from({ length: PAGE_SIZE }, (_, i) => mac(1901 + 2 * i)));
    expect(rowsOf((await client.get(`${switchPage}?q=${encodeURIComponent('3c:22:fb:0a:07:cf')}`)).text, 'mac')).toEqual([mac(1999)]);
  });

  it('answers networkClientsPage and switchMACTablePage on the API with the same pages, and refuses bad arguments', async () => {
    const key = await app.createKey('acme');
    const res = await app.graphql(
      `{ c: networkClientsPage(networkUUID: "${IDS.acmeHq}", search: " ost-012 ", limit: 100) { total clients { macAddress clientName } }
         m: switchMACTablePage(virtualDeviceUUID: "${IDS.acmeSwitch}", search: "3c22fb0a0000", limit: 100) { total entries { macAddress vlanID portNumber } } }`,
      { key },
    );
    expect(res.body).toEqual({
      data: {
        c: { total: 10, clients: Array.from({ length: 10 }, (_, i) => ({ macAddress: mac(120 + i), clientName: host(120 + i) })) },
        m: { total: 1, entries: [{ macAddress: mac(0), vlanID: 10, portNumber: 1 }] },
      },
    });
    const tooMany = await app.graphql(`{ networkClientsPage(networkUUID: "${IDS.acmeHq}", limit: 101) { total } }`, { key });
    expect(tooMany.body.errors[0]).toMatchObject({ message: expect.stringContaining('limit'), extensions: { code: 'BAD_USER_INPUT' } });
    const tooLong = await app.graphql(`{ switchMACTablePage(virtualDeviceUUID: "${IDS.acmeSwitch}", search: "${'a'.repeat(65)}", limit: 5) { total } }`, { key });
    expect(tooLong.body.errors[0]).toMatchObject({ message: expect.stringContaining('at most 64 characters'), extensions: { code: 'BAD_USER_INPUT' } });
    // another company's network and switch answer like missing ones
    const globex = await app.createKey('globex');
    const foreign = await app.graphql(`{ networkClientsPage(networkUUID: "${IDS.acmeHq}", limit: 5) { total } }`, { key: globex });
    expect(foreign.body.data).toEqual({ networkClientsPage: null });
    expect(foreign.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });
});
