import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/db/open-store.js';
import { LAST_USED_REFRESH_MS } from '../src/features/api-key/api-key.service.js';
import { generateKey, hashKey, isWellFormedKey } from '../src/features/api-key/api-key.token.js';
import { createServices } from '../src/services.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { ROOT, runNetgraph } from './helpers/cli.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

describe('key format', () => {
  it('has the ngk_ prefix, a checksum that catches typos, and a SHA-256 hash', () => {
    const { key, hash, prefix } = generateKey();
    expect(key).toMatch(/^ngk_[0-9A-Za-z]{38}$/);
    expect(isWellFormedKey(key)).toBe(true);
    expect(hash).toBe(hashKey(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.startsWith(prefix)).toBe(true);
    expect(prefix).toHaveLength(10);
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedKey(typo)).toBe(false);
    expect(generateKey().key).not.toBe(key);
  });
});

describe.each(storeKinds())('API keys on %s', (kind) => {
  let app: TestApp;
  const env = () => ({ DATABASE_URL: app.database.url });
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stores only a hash: the key value is nowhere in the database', async () => {
    const created = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'hash-only' });
    const rows = await app.server.store.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(created.key);
    expect(dump).not.toContain(created.key.slice(10));
    expect(dump).toContain(hashKey(created.key));
  });

  it('shows the first use within 2 seconds', async () => {
    const key = await app.createKey('acme', 'first-use');
    const before = (await app.server.services.apiKeys.list('acme')).find((k) => k.label === 'first-use');
    expect(before?.lastUsedAt).toBeNull();
    const sentAt = Date.now();
    expect((await app.graphql('{ __typename }', { key })).status).toBe(200);
    let lastUsedAt: string | null | undefined = null;
    while (lastUsedAt === null && Date.now() - sentAt < 2_000) {
      await new Promise((r) => setTimeout(r, 100));
      lastUsedAt = (await app.server.services.apiKeys.list('acme')).find((k) => k.label === 'first-use')?.lastUsedAt;
    }
    expect(lastUsedAt).not.toBeNull();
    expect(Date.parse(lastUsedAt as string)).toBeGreaterThanOrEqual(sentAt - 1_000);
  });

  it('refreshes last use once a minute while in use, not once per request', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    const store = await openStore(loadConfig({ DATABASE_URL: app.database.url }).database);
    try {
      const keys = createServices(store, { now: () => new Date(now) }).apiKeys;
      const { key, id } = await keys.create({ companySlug: 'acme', label: 'clocked' });
      const lastUsed = async () => (await keys.get(id)).lastUsedAt;
      const writesOf = async (requests: number) => {
        const before = store.stats.statements;
        for (let i = 0; i < requests; i++) {
          expect(await keys.authenticate(key)).toBeDefined();
          now += 100;
        }
        await keys.flushLastUsed();
        return store.stats.statements - before;
      };
      // first use: a lookup, then one write
      expect(await writesOf(1)).toBe(2);
      expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
      // 50 more requests within the minute: cached, no write at all
      expect(await writesOf(50)).toBe(0);
      expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
      // a minute later: the key is read again (its allowlist, every KEY_CACHE_REFRESH_MS), and one write moves it forward
      now += LAST_USED_REFRESH_MS;
      expect(await writesOf(10)).toBe(2);
      expect(Date.parse((await lastUsed()) as string)).toBeGreaterThan(Date.parse('2026-11-22T10:01:00.000Z'));
      await keys.stop();
    } finally {
      await store.close();
    }
  });

  it('revokes at once: after `netgraph keys revoke` (another process) returns, the next request gets 401', async () => {
    const key = await app.createKey('acme', 'to-revoke');
    const other = await app.createKey('acme', 'stays');
    expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key })).status).toBe(200);
    const id = (await app.server.services.apiKeys.list('acme')).find((k) => k.label === 'to-revoke')?.id as string;
    const revoke = await runNetgraph(['keys', 'revoke', id, '--json'], env());
    expect(revoke.stderr).toBe('');
    expect(revoke.code).toBe(0);
    expect(JSON.parse(revoke.stdout)).toMatchObject({ id, label: 'to-revoke', revokedAt: expect.any(String) });
    const res = await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key });
    expect(res.status).toBe(401);
    // and it stays revoked; the company's other key is unaffected
    expect((await app.graphql('{ __typename }', { key })).status).toBe(401);
    expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key: other })).status).toBe(200);
  });

  it('lists keys with label, visible prefix, times and status, never the value', async () => {
    const created = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'listed', scope: 'read' });
    const list = await runNetgraph(['keys', 'list', '--company', 'acme', '--json'], env());
    expect(list.code).toBe(0);
    const entry = JSON.parse(list.stdout).find((k: { id: string }) => k.id === created.id);
    expect(entry).toEqual({
      id: created.id,
      company: 'acme',
      label: 'listed',
      prefix: created.key.slice(0, 10),
      scope: 'read',
      createdAt: created.createdAt,
      lastUsedAt: null,
      lastUsedAddress: null,
      revokedAt: null,
      expiresAt: null,
      expiryAlertedAt: null,
      allowedAddresses: [],
    });
    expect(list.stdout).not.toContain(created.key);
    const table = await runNetgraph(['keys', 'list', '--company', 'acme'], env());
    expect(table.stdout).toMatch(/^ID\s+LABEL\s+KEY\s+SCOPE\s+CREATED\s+EXPIRES\s+ALLOWED FROM\s+LAST USED\s+STATUS/);
    expect(table.stdout).toContain(`${created.key.slice(0, 10)}…`);
    expect(table.stdout).toMatch(/listed .* never +any +never +active/);
  });
});

describe('keys never reach the log', () => {
  it('a server at LOG_LEVEL=trace logs no key, valid, unknown or revoked', async () => {
    const app = await startTestApp('sqlite', { data: createFixture() });
    const valid = await app.createKey('acme', 'logged?');
    const revoked = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'revoked' });
    await app.server.services.apiKeys.revoke(revoked.id);
    const unknown = generateKey().key;
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, ['bin/netgraph.js', 'serve', '--port', String(port)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: app.database.url, LOG_LEVEL: 'trace', DEMO_DATA: 'off' },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      const url = `http://127.0.0.1:${port}/api/v1/graphql`;
      for (let i = 0; i < 50 && !output.includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
      for (const key of [valid, revoked.key, unknown, `${valid}x`]) {
        for (const query of ['{ __typename }', '{ nope }']) {
          await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
        }
      }
      await new Promise((r) => setTimeout(r, 1_200));
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      await app.close();
    }
    expect(output).toContain('"msg":"request"');
    for (const key of [valid, revoked.key, unknown]) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(key.slice(10, 30));
    }
  });
});
