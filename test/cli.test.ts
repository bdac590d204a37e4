import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runNetgraph } from './helpers/cli.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

describe.each(storeKinds())('the netgraph CLI on %s', (kind) => {
  let database: TestDatabase;
  const env = () => ({ DATABASE_URL: database.url });
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('refuses to work on an unmigrated database and says what to run', async () => {
    const result = await runNetgraph(['company', 'create', '--slug', 'x', '--name', 'X'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pending migrations: run "netgraph migrate" first/);
  });

  it('migrates, and a second migrate (or two at once) changes nothing', async () => {
    const [a, b] = await Promise.all([runNetgraph(['migrate', '--json'], env()), runNetgraph(['migrate', '--json'], env())]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const applied = [...JSON.parse(a.stdout).applied, ...JSON.parse(b.stdout).applied];
    // every file of src/db/migrations/ is a migration (src/db/migrate.ts reads the folder) and is applied once, in name order
    const files = fs.readdirSync(path.join(ROOT, 'src/db/migrations')).map((file) => path.basename(file, '.ts'));
    expect(files).toContain('0037-collector-ranges');
    expect(applied).toEqual(files.sort());
    const again = await runNetgraph(['migrate'], env());
    expect(again.stdout).toContain('already up to date');
  });

  it('creates a company, and refuses a duplicate or an invalid slug', async () => {
    const created = await runNetgraph(['company', 'create', '--slug', 'initech', '--name', 'Initech', '--json'], env());
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ slug: 'initech', name: 'Initech', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const duplicate = await runNetgraph(['company', 'create', '--slug', 'initech', '--name', 'Again'], env());
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('A company with slug "initech" already exists');
    const invalid = await runNetgraph(['company', 'create', '--slug', 'Not Valid', '--name', 'X'], env());
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/slug "Not Valid" is not valid: use lowercase letters/);
  });

  it('creates a company with a website domain and as no customer; a customer without a domain by default', async () => {
    const created = await runNetgraph(['company', 'create', '--slug', 'hooli', '--name', 'Hooli', '--website-domain', 'hooli.example', '--customer', 'false', '--json'], env());
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ slug: 'hooli', isCustomer: false, websiteDomain: 'hooli.example' });
    const plain = await runNetgraph(['company', 'create', '--slug', 'piper', '--name', 'Piper', '--json'], env());
    expect(JSON.parse(plain.stdout)).toMatchObject({ slug: 'piper', isCustomer: true, websiteDomain: null });
    const badDomain = await runNetgraph(['company', 'create', '--slug', 'bad-domain', '--name', 'X', '--website-domain', 'https://x.example/'], env());
    expect(badDomain.code).toBe(1);
    expect(badDomain.stderr).toContain('websiteDomain "https://x.example/" is not valid');
    const badFlag = await runNetgraph(['company', 'create', '--slug', 'bad-flag', '--name', 'X', '--customer', 'maybe'], env());
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toContain('--customer must be true or false');
  });

  it('creates keys with --json, and the printed key works once stored nowhere else', async () => {
    const result = await runNetgraph(['keys', 'create', '--company', 'initech', '--label', 'ci', '--json'], env());
    expect(result.code).toBe(0);
    const key = JSON.parse(result.stdout);
    expect(key).toMatchObject({ id: expect.any(String), label: 'ci', company: 'initech', scope: 'read', key: expect.stringMatching(/^ngk_/) });
    const human = await runNetgraph(['keys', 'create', '--company', 'initech', '--label', 'human'], env());
    expect(human.stdout).toMatch(/Created API key "human".*\n\n {2}ngk_[0-9A-Za-z]{38}\n\nThis is the only time the key is shown/);
  });

  it.each([
    [['keys', 'create', '--company', 'initech'], 1, /--label is required, e.g. --label billing-sync/],
    [['keys', 'create', '--company', 'nobody', '--label', 'x'], 1, /No company with slug "nobody"/],
    [['keys', 'create', '--company', 'initech', '--label', 'x', '--scope', 'admin'], 1, /scope must be one of read, read_write/],
    [['keys', 'revoke'], 1, /name the key to revoke by its id/],
    [['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], 1, /No API key with id/],
    [['keys', 'list', '--company', 'initech', '--bogus'], 2, /Unknown option '--bogus'/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['keys', 'rename'], 2, /unknown command "keys rename"/],
    [['serve', '--workers', 'many'], 1, /--workers must be a whole number from 1 to 64/],
  ] as const)('%j fails with exit %i and says what to do', async (args, code, message) => {
    const result = await runNetgraph(args, env());
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});

describe('configuration', () => {
  it('lists every problem at once and exits non-zero', async () => {
    const result = await runNetgraph(['migrate'], { DATABASE_URL: 'mysql://x', PORT: 'eighty', LOG_LEVEL: 'loud', DEMO_DATA: 'maybe' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid configuration:');
    expect(result.stderr).toMatch(/PORT: "eighty" is not a whole number/);
    expect(result.stderr).toMatch(/DATABASE_URL: unsupported value "mysql:\/\/x"/);
    expect(result.stderr).toMatch(/LOG_LEVEL: "loud" is not one of/);
    expect(result.stderr).toMatch(/DEMO_DATA: "maybe"/);
  });

  it('never prints a database password', async () => {
    const result = await runNetgraph(['keys', 'list', '--company', 'x'], { DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('s3cret');
    expect(result.stderr).toMatch(/database .*unavailable/i);
  });

  it('prints usage for help', async () => {
    const result = await runNetgraph(['help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: netgraph <command>/);
  });
});

describe('npm start on an empty database (the README quick start)', () => {
  // with workers, the primary seeds the store a second before any worker listens: the command still works as soon as printed
  it.each([[[]], [['--', '--workers', '2']]])('%j migrates, loads the demo company, prints a key once and a curl command that works as pasted', async (args) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-start-'));
    const port = 21000 + Math.floor(Math.random() * 20000);
    const child = spawn('npm', ['start', '--silent', ...args], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${path.join(dir, 'netgraph.db')}`, LOG_LEVEL: 'warn', CI: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      for (let i = 0; i < 600 && !/-d '.*'\n/.test(output); i++) await new Promise((r) => setTimeout(r, 100));
      const curl = /(curl -s [\s\S]*?-d '.*')\n/.exec(output)?.[1];
      expect(curl, output).toBeDefined();
      expect(output).toContain('first start. Loaded the demo company "Acme Networks" (slug: acme)');
      expect(output).toMatch(/API key \(shown only this once, store it now\): ngk_[0-9A-Za-z]{38}/);
      // run the printed command exactly as a user pastes it
      const pasted = await new Promise<string>((resolve, reject) => {
        const sh = spawn('sh', ['-c', curl as string]);
        let out = '';
        sh.stdout.on('data', (c: Buffer) => (out += c.toString()));
        sh.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl exited ${code}`))));
      });
      const body = JSON.parse(pasted);
      expect(body.data.companyBySlug.name).toBe('Acme Networks');
      expect(body.data.companyBySlug.networks.length).toBeGreaterThanOrEqual(4);
    } finally {
      process.kill(-(child.pid as number), 'SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
    // a second start finds the data and prints no key
    const again = await runNetgraph(['keys', 'list', '--company', 'acme', '--json'], { DATABASE_URL: `sqlite:${path.join(dir, 'netgraph.db')}` });
    expect(JSON.parse(again.stdout)).toHaveLength(1);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});
