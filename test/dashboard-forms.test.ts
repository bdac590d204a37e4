import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import type { DashboardClient } from './helpers/dashboard.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const PASSWORD = 'correct horse battery';

interface ApiNetwork {
  UUID: string;
  label: string;
  slug: string;
  isActive: boolean;
  mailingAddress: { city: string | null; subdivisionCode: string | null } | null;
  vlans: { UUID: string; name: string; vlanID: number; isEnabled: boolean }[];
  ssids: { UUID: string; ssid: string; isEnabled: boolean }[];
}

const NETWORKS = `{ companyBySlug(slug: "acme") { networks {
  UUID label slug isActive mailingAddress { city subdivisionCode }
  vlans { UUID name vlanID isEnabled } ssids { UUID ssid isEnabled } } } }`;

describe.each(storeKinds())('the dashboard\'s network, VLAN and SSID forms on %s', (kind) => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    const users = app.server.services.users;
    await users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: PASSWORD });
    await users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: PASSWORD });
    await users.create({ companySlug: 'globex', email: 'admin@globex.example', role: 'admin', password: PASSWORD });
    key = await app.createKey('acme', 'read back');
  });
  afterAll(async () => {
    await app?.close();
  });

  // a sign-in costs a deliberately slow password hash: one session per user
  const sessions = new Map<string, Promise<DashboardClient>>();
  const signedIn = (email: string) => {
    if (!sessions.has(email)) {
      sessions.set(email, (async () => {
        const client = createDashboardClient(app);
        expect((await signIn(client, email, PASSWORD)).status).toBe(303);
        return client;
      })());
    }
    return sessions.get(email) as Promise<DashboardClient>;
  };
  /** The company's networks as the API reads them with a key. */
  const apiNetworks = async (): Promise<ApiNetwork[]> => {
    const res = await app.graphql(NETWORKS, { key });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.companyBySlug.networks as ApiNetwork[];
  };
  const apiNetwork = async (uuid: string) => (await apiNetworks()).find((n) => n.UUID === uuid);
  /** Adds a network through the form and returns its UUID. */
  const addNetwork = async (client: DashboardClient, slug: string) => {
    await client.get('/networks/new');
    const res = await client.post('/networks', { label: `Site ${slug}`, slug, active: 'on', city: '', region: '' });
    expect(res.status).toBe(303);
    return /^\/networks\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1] as string;
  };
  const fieldError = (text: string, id: string) => new RegExp(`<span class="field-error" id="${id}-help">([^<]*)</span>`).exec(text)?.[1];

  describe('networks', () => {
    it('adds a network with label, slug, active, city and region, read back through the API', async () => {
      const client = await signedIn('admin@acme.example');
      const list = await client.get('/networks');
      expect(list.text).toContain('href="/networks/new"');
      const form = await client.get('/networks/new');
      expect(form.status).toBe(200);
      expect(form.text).toContain('<input type="checkbox" name="active" checked>');
      const res = await client.post('/networks', { label: 'Branch Bern', slug: 'bern', active: 'on', city: 'Bern', region: 'BE' });
      expect(res.status).toBe(303);
      const uuid = /^\/networks\/([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1] as string;
      expect(await apiNetwork(uuid)).toEqual({
        UUID: uuid, label: 'Branch Bern', slug: 'bern', isActive: true, mailingAddress: { city: 'Bern', subdivisionCode: 'BE' }, vlans: [], ssids: [],
      });
      expect((await client.get(`/networks/${uuid}`)).text).toContain('Branch Bern');
    });

    it('shows a taken slug next to the slug field, keeps the input and adds nothing', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get('/networks/new');
      const before = (await apiNetworks()).length;
      const res = await client.post('/networks', { label: 'Second HQ <b>', slug: 'hq', active: '', city: 'Basel', region: '' });
      expect(res.status).toBe(400);
      expect(fieldError(res.text, 'network-slug')).toBe('The company already has a network with slug &quot;hq&quot;: pick another slug.');
      expect(res.text).toContain('value="Second HQ &lt;b&gt;"');
      expect(res.text).toContain('value="Basel"');
      expect(res.text).toContain('<input type="checkbox" name="active">');
      expect((await apiNetworks()).length).toBe(before);
    });

    it('edits label, slug, active and mailing address, and refuses an invalid slug in the page', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'to-edit');
      const page = await client.get(`/networks/${uuid}`);
      expect(page.text).toContain(`href="/networks/${uuid}/edit"`);
      const form = await client.get(`/networks/${uuid}/edit`);
      expect(form.text).toContain('value="to-edit"');
      const res = await client.post(`/networks/${uuid}/edit`, { label: 'Edited', slug: 'edited', city: 'Genève', region: 'GE' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/networks/${uuid}`);
      expect(await apiNetwork(uuid)).toMatchObject({ label: 'Edited', slug: 'edited', isActive: false, mailingAddress: { city: 'Genève', subdivisionCode: 'GE' } });

      const refused = await client.post(`/networks/${uuid}/edit`, { label: 'Edited again', slug: 'Not A Slug', active: 'on', city: '', region: '' });
      expect(refused.status).toBe(400);
      expect(fieldError(refused.text, 'network-slug')).toContain('slug &quot;Not A Slug&quot; is not valid');
      expect(refused.text).toContain('value="Edited again"');
      expect(await apiNetwork(uuid)).toMatchObject({ label: 'Edited', slug: 'edited', isActive: false });
    });
  });

  describe('VLANs', () => {
    it('deletes a network from its edit page, behind a confirmation, and records it under the user', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'doomed');
      expect((await client.post(`/networks/${uuid}/vlans`, { name: 'Staff', vlanID: '10', enabled: 'on' })).status).toBe(303);
      const edit = await client.get(`/networks/${uuid}/edit`);
      expect(edit.text).toMatch(new RegExp(`<form method="post" action="/networks/${uuid}/delete" data-confirm="Delete the network “[^"]+” with its devices, VLANs, SSIDs and clients\\? This cannot be undone.">`));
      const deleted = await client.post(`/networks/${uuid}/delete`, {});
      expect(deleted.status).toBe(303);
      expect(deleted.headers.get('location')).toBe('/networks');
      expect(await apiNetwork(uuid)).toBeUndefined();
      expect((await client.get(`/networks/${uuid}`)).status).toBe(404);
      const [entry] = (await app.server.services.audit.list({ companySlug: 'acme' })).slice(-1);
      expect(entry).toMatchObject({ action: 'network.delete', objectId: uuid, actor: { type: 'user', label: 'admin@acme.example' } });
    });

    it('adds, edits and deletes a VLAN on the network page', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'vlans');
      const page = await client.get(`/networks/${uuid}`);
      expect(page.text).toContain(`action="/networks/${uuid}/vlans"`);
      const add = await client.post(`/networks/${uuid}/vlans`, { name: 'Staff', vlanID: '10', enabled: 'on' });
      expect(add.status).toBe(303);
      expect(add.headers.get('location')).toBe(`/networks/${uuid}#vlans`);
      const [vlan] = (await apiNetwork(uuid))?.vlans ?? [];
      expect(vlan).toMatchObject({ name: 'Staff', vlanID: 10, isEnabled: true });
      const id = vlan?.UUID as string;

      const editing = await client.get(`/networks/${uuid}?edit=${id}`);
      expect(editing.text).toContain(`id="edit-${id}"`);
      expect(editing.text).toContain(`name="vlanID" id="vlanID-${id}" value="10" form="edit-${id}"`);
      expect((await client.post(`/networks/${uuid}/vlans/${id}`, { name: 'Staff 2', vlanID: '11' })).status).toBe(303);
      expect((await apiNetwork(uuid))?.vlans).toEqual([{ UUID: id, name: 'Staff 2', vlanID: 11, isEnabled: false }]);

      expect((await client.post(`/networks/${uuid}/vlans/${id}/delete`, {})).status).toBe(303);
      expect((await apiNetwork(uuid))?.vlans).toEqual([]);
    });

    it('shows an out-of-range and a taken VLAN id next to the field, keeping the input', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(`/networks/${IDS.acmeHq}`);
      const before = (await apiNetwork(IDS.acmeHq))?.vlans;
      const range = await client.post(`/networks/${IDS.acmeHq}/vlans`, { name: 'Too high', vlanID: '5000', enabled: 'on' });
      expect(range.status).toBe(400);
      expect(fieldError(range.text, 'vlan-new-id')).toBe('vlanID must be a whole number from 1 to 4094.');
      expect(range.text).toContain('value="Too high"');
      expect(range.text).toContain('value="5000"');
      const taken = await client.post(`/networks/${IDS.acmeHq}/vlans/${IDS.acmeVlan}`, { name: 'Guest', vlanID: '10', enabled: '' });
      expect(taken.status).toBe(400);
      expect(fieldError(taken.text, `vlanID-${IDS.acmeVlan}`)).toBe('VLAN id 10 is already used by another VLAN of this network: pick another.');
      expect((await apiNetwork(IDS.acmeHq))?.vlans).toEqual(before);
    });
  });

  describe("the Meter API's VLAN and SSID fields", () => {
    const fieldsOf = async (uuid: string) => {
      const res = await app.graphql(
        `{ vlans(networkUUID: "${uuid}") { name isDefault description } ssidsForNetwork(networkUUID: "${uuid}") { ssid isGuest isHidden encryptionProtocol vlan { vlanID } } }`,
        { key },
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data as { vlans: unknown[]; ssidsForNetwork: { ssid: string }[] };
    };

    it('adds and edits a VLAN with its description and default flag, and an SSID with encryption, VLAN, guest and hidden', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'meter-fields');
      const vlan = await client.post(`/networks/${uuid}/vlans`, { name: 'Voice', vlanID: '30', description: 'phones', default: 'on', enabled: 'on' });
      expect(vlan.status).toBe(303);
      const ssid = await client.post(`/networks/${uuid}/ssids`, { ssid: 'Lobby', encryption: 'WPA3', vlan: '30', guest: 'on', hidden: 'on', enabled: 'on' });
      expect(ssid.status).toBe(303);
      expect(await fieldsOf(uuid)).toEqual({
        vlans: [{ name: 'Voice', isDefault: true, description: 'phones' }],
        ssidsForNetwork: [{ ssid: 'Lobby', isGuest: true, isHidden: true, encryptionProtocol: 'WPA3', vlan: { vlanID: 30 } }],
      });
      const page = await client.get(`/networks/${uuid}`);
      expect(page.text).toContain('<td>phones</td>');
      expect(page.text).toContain('<td>WPA3</td>');
      const id = (await apiNetwork(uuid))?.ssids[0]?.UUID as string;
      const editing = await client.get(`/networks/${uuid}?edit=${id}`);
      expect(editing.text).toContain(`name="encryption" id="encryption-${id}" value="WPA3" form="edit-${id}"`);
      // blank encryption and VLAN ID clear them; unchecked flags are false
      expect((await client.post(`/networks/${uuid}/ssids/${id}`, { ssid: 'Lobby', encryption: '', vlan: '', enabled: 'on' })).status).toBe(303);
      expect((await fieldsOf(uuid)).ssidsForNetwork).toEqual([{ ssid: 'Lobby', isGuest: false, isHidden: false, encryptionProtocol: null, vlan: null }]);
    });

    it("shows an SSID's out-of-range VLAN ID next to the field, keeping the input", async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(`/networks/${IDS.acmeHq}`);
      const res = await client.post(`/networks/${IDS.acmeHq}/ssids`, { ssid: 'Cams', vlan: '5000', enabled: 'on' });
      expect(res.status).toBe(400);
      expect(fieldError(res.text, 'ssid-new-vlan')).toBe('vlanID must be a whole number from 1 to 4094, or null.');
      expect(res.text).toContain('value="5000"');
    });
  });

  describe('SSIDs', () => {
    it('adds, disables, enables, edits and deletes an SSID on the network page', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'ssids');
      await client.get(`/networks/${uuid}`);
      expect((await client.post(`/networks/${uuid}/ssids`, { ssid: 'Guest Wi-Fi', enabled: 'on' })).status).toBe(303);
      const id = (await apiNetwork(uuid))?.ssids[0]?.UUID as string;
      const page = await client.get(`/networks/${uuid}`);
      expect(page.text).toContain(`action="/networks/${uuid}/ssids/${id}/enabled"`);
      expect((await client.post(`/networks/${uuid}/ssids/${id}/enabled`, { enabled: 'off' })).status).toBe(303);
      expect((await apiNetwork(uuid))?.ssids).toEqual([{ UUID: id, ssid: 'Guest Wi-Fi', isEnabled: false }]);
      expect((await client.post(`/networks/${uuid}/ssids/${id}/enabled`, { enabled: 'on' })).status).toBe(303);
      expect((await client.post(`/networks/${uuid}/ssids/${id}`, { ssid: 'Visitors', enabled: 'on' })).status).toBe(303);
      expect((await apiNetwork(uuid))?.ssids).toEqual([{ UUID: id, ssid: 'Visitors', isEnabled: true }]);
      expect((await client.post(`/networks/${uuid}/ssids/${id}/delete`, {})).status).toBe(303);
      expect((await apiNetwork(uuid))?.ssids).toEqual([]);
    });

    it('shows a name over 32 bytes next to the field, keeping the input', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(`/networks/${IDS.acmeHq}`);
      const before = (await apiNetwork(IDS.acmeHq))?.ssids;
      const name = 'ü'.repeat(17); // 34 bytes in 17 characters
      const res = await client.post(`/networks/${IDS.acmeHq}/ssids`, { ssid: name, enabled: 'on' });
      expect(res.status).toBe(400);
      expect(fieldError(res.text, 'ssid-new-name')).toBe('ssid must be a name of 1 to 32 bytes (UTF-8).');
      expect(res.text).toContain(`value="${name}"`);
      expect((await apiNetwork(IDS.acmeHq))?.ssids).toEqual(before);
    });
  });

  describe('audit log', () => {
    it('lists the company\'s writes newest first with who, action, object and a compact diff', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'audited');
      await client.get(`/networks/${uuid}`);
      expect((await client.post(`/networks/${uuid}/edit`, { label: 'Audited <site>', slug: 'audited', active: 'on' })).status).toBe(303);
      expect((await client.post(`/networks/${uuid}/vlans`, { name: 'Audit VLAN', vlanID: '42', enabled: 'on' })).status).toBe(303);
      const globex = await signedIn('admin@globex.example');
      await globex.get('/networks/new');
      expect((await globex.post('/networks', { label: 'Globex only', slug: 'globex-only', active: 'on' })).status).toBe(303);

      const res = await client.get('/settings/audit-log');
      expect(res.status).toBe(200);
      expect(res.text).toContain('aria-current="page">Audit log</a>');
      const rows = [...res.text.matchAll(/<tr data-action="([^"]+)" data-entry="[^"]+">([^]*?)<\/tr>/g)].map((m) => ({ action: m[1], text: m[2] ?? '' }));
      expect(rows.slice(0, 3).map((r) => r.action)).toEqual(['vlan.create', 'network.update', 'network.create']);
      const [vlan, update, create] = rows;
      expect(vlan?.text).toContain('<span class="muted">User</span> admin@acme.example');
      expect(vlan?.text).toContain('<span class="diff-field">vlanID</span> <ins>42</ins>');
      expect(update?.text).toContain(`<code>${uuid}</code>`);
      expect(update?.text).toContain('<span class="diff-field">label</span> <del>&quot;Site audited&quot;</del> → <ins>&quot;Audited &lt;site&gt;&quot;</ins>');
      expect(update?.text).not.toContain('diff-field">slug');
      expect(create?.text).toContain('<span class="diff-field">slug</span> <ins>&quot;audited&quot;</ins>');
      expect(res.text).not.toContain('Globex only');
    });

    it('pages through the whole log, 100 entries a page, newest first, in the order `audit list` has', async () => {
      const client = await signedIn('admin@acme.example');
      const uuid = await addNetwork(client, 'paged');
      // enough writes for three pages: ten VLANs a request
      const { key: writer } = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'pager', scope: 'read_write' });
      for (let i = 0; i < 20; i++) {
        const fields = Array.from({ length: 10 }, (_, j) => `v${j}: createVLAN(input: { networkUUID: "${uuid}", name: "P${i}-${j}", vlanID: ${100 + i * 10 + j} }) { vlan { UUID } }`);
        const res = await app.graphql(`mutation { ${fields.join(' ')} }`, { key: writer });
        expect(res.body.errors).toBeUndefined();
      }
      const all = (await app.server.services.audit.list({ companySlug: 'acme' })).reverse();
      expect(all.length).toBeGreaterThan(200);

      const seen: string[] = [];
      let path: string | null = '/settings/audit-log';
      let pages = 0;
      while (path !== null) {
        const res = await client.get(path);
        expect(res.status).toBe(200);
        const ids = [...res.text.matchAll(/<tr data-action="[^"]+" data-entry="([^"]+)">/g)].map((m) => m[1] as string);
        expect(ids.length).toBeLessThanOrEqual(100);
        seen.push(...ids);
        pages += 1;
        if (pages > 1) expect(res.text).toContain('href="/settings/audit-log">Newest entries</a>');
        path = /href="(\/settings\/audit-log\?before=[0-9a-f-]{36})" rel="next"/.exec(res.text)?.[1] ?? null;
      }
      expect(pages).toBe(Math.ceil(all.length / 100));
      expect(seen).toEqual(all.map((e) => e.id));

      expect((await client.get('/settings/audit-log?before=not-an-id')).status).toBe(404);
      const globex = await signedIn('admin@globex.example');
      // another company's entry as the cursor shows nothing of it
      const foreign = await globex.get(`/settings/audit-log?before=${all[0]?.id}`);
      expect(foreign.status).toBe(200);
      expect(foreign.text).toContain('No older changes');
    });

    it('is for admins only: members get 403 and see no link to it', async () => {
      const client = await signedIn('member@acme.example');
      expect((await client.get('/settings/integrations/api-keys')).text).not.toContain('/settings/audit-log');
      const res = await client.get('/settings/audit-log');
      expect(res.status).toBe(403);
      expect(res.text).toContain('Only admins can read the audit log.');
    });
  });

  describe('who may change what', () => {
    it('shows members no forms and refuses their forged POSTs with 403, changing nothing', async () => {
      const client = await signedIn('member@acme.example');
      const list = await client.get('/networks');
      expect(list.text).not.toContain('/networks/new');
      const page = await client.get(`/networks/${IDS.acmeHq}`);
      expect(page.text).not.toContain('Add VLAN');
      expect(page.text).not.toContain('/edit"');
      // no form that writes: the client list's search is the page's only form, a GET to the page itself
      expect([...page.text.matchAll(/<form [^>]*>/g)].map((m) => m[0]).filter((form) => form.includes('action="/networks/'))).toEqual([
        `<form method="get" action="/networks/${IDS.acmeHq}#clients" class="filters list-search" role="search">`,
      ]);
      expect((await client.get(`/networks/${IDS.acmeHq}?edit=${IDS.acmeVlan}`)).text).not.toContain(`id="edit-${IDS.acmeVlan}"`);
      expect((await client.get('/networks/new')).status).toBe(403);
      expect((await client.get(`/networks/${IDS.acmeHq}/edit`)).status).toBe(403);
      const before = await apiNetworks();
      const forged = [
        await client.post('/networks', { label: 'Member net', slug: 'member-net', active: 'on' }),
        await client.post(`/networks/${IDS.acmeHq}/edit`, { label: 'Member edit', slug: 'hq' }),
        await client.post(`/networks/${IDS.acmeHq}/vlans`, { name: 'Member', vlanID: '99' }),
        await client.post(`/networks/${IDS.acmeHq}/vlans/${IDS.acmeVlan}/delete`, {}),
        await client.post(`/networks/${IDS.acmeHq}/ssids/${IDS.acmeSsid}/enabled`, { enabled: 'on' }),
        await client.post(`/networks/${IDS.acmeHq}/delete`, {}),
      ];
      for (const res of forged) {
        expect(res.status).toBe(403);
        expect(res.text).toContain('Only admins can change networks, VLANs and SSIDs.');
      }
      expect(await apiNetworks()).toEqual(before);
    });

    it('answers another company\'s admin with the same 404 as for a missing network or VLAN, changing nothing', async () => {
      const client = await signedIn('admin@globex.example');
      await client.get('/networks');
      const before = await apiNetworks();
      const missing = '11111111-1111-4111-8111-999999999999';
      const answers = [
        await client.get(`/networks/${IDS.acmeHq}/edit`),
        await client.post(`/networks/${IDS.acmeHq}/edit`, { label: 'Taken over', slug: 'hq' }),
        await client.post(`/networks/${IDS.acmeHq}/vlans`, { name: 'Theirs', vlanID: '99' }),
        await client.post(`/networks/${missing}/vlans`, { name: 'Nowhere', vlanID: '99' }),
        await client.post(`/networks/${IDS.globexHq}/vlans/${IDS.acmeVlan}/delete`, {}),
        await client.post(`/networks/${IDS.globexHq}/ssids/${IDS.acmeSsid}/enabled`, { enabled: 'on' }),
        await client.post(`/networks/${IDS.acmeHq}/delete`, {}),
        await client.post(`/networks/${missing}/delete`, {}),
      ];
      for (const res of answers) expect(res.status).toBe(404);
      expect(await apiNetworks()).toEqual(before);
    });

    it('refuses a form without the session\'s CSRF token', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(`/networks/${IDS.acmeHq}`);
      const before = await apiNetworks();
      const res = await client.post(`/networks/${IDS.acmeHq}/vlans`, { name: 'No token', vlanID: '98' }, { csrf: null });
      expect(res.status).toBe(403);
      expect(await apiNetworks()).toEqual(before);
    });
  });
});
