import fs from 'node:fs/promises';
import type { Config } from '../config.js';
import { redactUrl } from '../config.js';
import { isMigrated, migrateToLatest } from '../db/migrate.js';
import type { Store } from '../db/store.js';
import { AppError } from '../errors.js';
import type { ApiKeyInfo } from '../modules/api-key/api-key.service.js';
import type { AuditEntry } from '../modules/audit/audit.service.js';
import { parseJsonText } from '../modules/formats/json-input.js';
import type { UserInfo } from '../modules/user/user.service.js';
import { openRuntime } from '../runtime.js';
import type { Services } from '../services.js';
import { COLLECTOR_OPTIONS, collector } from './collector.command.js';
import type { CliIo, Command } from './io.js';
import { printJson, printTable, required } from './io.js';
import { serve } from './serve.js';
import { SIMULATE_OPTIONS, simulate } from './simulate.command.js';
import { webhookCommands } from './webhooks.command.js';

/** Opens the runtime, checks migrations are applied, runs `fn` with the services, closes. */
async function withServices<T>(config: Config, fn: (services: Services, store: Store) => Promise<T>): Promise<T> {
  const { store, services, close } = await openRuntime(config, { poolSize: 2 });
  try {
    const migrated = await isMigrated(store).catch((error: unknown) => {
      throw store.classifyError(error);
    });
    if (!migrated) {
      throw new AppError('SERVICE_UNAVAILABLE', `The database ${redactUrl(config.databaseUrl)} has pending migrations: run "netgraph migrate" first.`);
    }
    return await fn(services, store);
  } catch (error) {
    throw store.classifyError(error);
  } finally {
    await close();
  }
}

/** --customer true|false; absent: true. */
function customerFlag(value: unknown): boolean {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new AppError('BAD_USER_INPUT', `--customer must be true or false, e.g. --customer false`, { field: 'customer' });
}

function keyRow(key: ApiKeyInfo): string[] {
  return [
    key.id,
    key.label,
    `${key.prefix}…`,
    key.scope,
    key.createdAt,
    key.lastUsedAt ?? 'never',
    key.revokedAt ? `revoked ${key.revokedAt}` : 'active',
  ];
}

function auditRow(entry: AuditEntry): string[] {
  const who = entry.actor.id === null ? entry.actor.label : `${entry.actor.label} (${entry.actor.id})`;
  return [entry.occurredAt, entry.company, `${entry.actor.type}: ${who}`, entry.action, entry.objectId];
}

const json = { type: 'boolean' } as const;

/** The password piped to stdin (its first line), or undefined to have one generated. */
async function readPipedPassword(io: CliIo): Promise<string | undefined> {
  if (!io.stdinIsPiped?.()) return undefined;
  const firstLine = (await io.readStdin()).split(/\r?\n/)[0] ?? '';
  return firstLine === '' ? undefined : firstLine;
}

function userRow(user: UserInfo): string[] {
  return [user.id, user.email, user.role, user.createdAt];
}

export const COMMANDS: readonly Command[] = [
  {
    path: ['serve'],
    options: { port: { type: 'string' }, host: { type: 'string' }, workers: { type: 'string' } },
    run: serve,
  },
  {
    path: ['migrate'],
    options: { json },
    async run({ config, values, io }) {
      const { store, close } = await openRuntime(config, { poolSize: 1 });
      try {
        const results = await migrateToLatest(store).catch((error: unknown) => {
          throw store.classifyError(error);
        });
        const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
        if (values.json) printJson(io, { applied });
        else io.out(applied.length === 0 ? 'netgraph migrate: already up to date.' : `netgraph migrate: applied ${applied.join(', ')}.`);
        return 0;
      } finally {
        await close();
      }
    },
  },
  {
    path: ['import'],
    options: { json },
    async run({ config, positionals, values, io }) {
      const file = positionals[0];
      if (file === undefined) throw new AppError('BAD_USER_INPUT', 'name the file to import, e.g. netgraph import data.json (or - for stdin)');
      const text = file === '-' ? await io.readStdin() : await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new AppError('BAD_USER_INPUT', `cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      let document: unknown;
      try {
        document = parseJsonText(text);
      } catch (error) {
        throw new AppError('BAD_USER_INPUT', `${file} is not valid JSON: ${(error as Error).message}`);
      }
      const started = performance.now();
      const counts = await withServices(config, (services) => services.imports.import(document));
      const seconds = (performance.now() - started) / 1000;
      if (values.json) printJson(io, { ...counts, seconds: Math.round(seconds * 1000) / 1000 });
      else {
        io.out(
          `netgraph import: loaded ${counts.companies} companies, ${counts.networks} networks, ${counts.virtualDevices} virtual devices, ` +
            `${counts.hardwareDevices} hardware devices, ${counts.vlans} VLANs, ${counts.ssids} SSIDs and ${counts.clients} clients in ${seconds.toFixed(1)} s.`,
        );
      }
      return 0;
    },
  },
  {
    path: ['export'],
    options: { json, company: { type: 'string' }, output: { type: 'string', short: 'o' } },
    async run({ config, values, io }) {
      const company = typeof values.company === 'string' ? values.company : undefined;
      const document = await withServices(config, (services) => services.imports.export(company));
      const text = JSON.stringify(document, null, 2);
      if (typeof values.output === 'string') {
        const temp = `${values.output}.tmp-${process.pid}`;
        await fs.writeFile(temp, `${text}\n`);
        await fs.rename(temp, values.output);
        io.err(`netgraph export: wrote ${document.companies.length} companies to ${values.output}.`);
      } else {
        io.out(text);
      }
      return 0;
    },
  },
  {
    path: ['company', 'create'],
    options: { json, slug: { type: 'string' }, name: { type: 'string' }, 'website-domain': { type: 'string' }, customer: { type: 'string' } },
    async run(context) {
      const slug = required(context, 'slug', 'acme');
      const name = required(context, 'name', '"Acme Networks"');
      const isCustomer = customerFlag(context.values.customer);
      const domain = context.values['website-domain'];
      const websiteDomain = typeof domain === 'string' ? domain : null;
      const company = await withServices(context.config, (services) => services.companies.create({ slug, name, isCustomer, websiteDomain }));
      const { uuid: id, createdAt } = company;
      if (context.values.json) printJson(context.io, { id, slug, name: company.name, createdAt, isCustomer: company.isCustomer, websiteDomain: company.websiteDomain });
      else context.io.out(`netgraph company create: created "${company.name}" (slug: ${company.slug}).`);
      return 0;
    },
  },
  {
    path: ['keys', 'create'],
    options: { json, company: { type: 'string' }, label: { type: 'string' }, scope: { type: 'string' } },
    async run(context) {
      const companySlug = required(context, 'company', 'acme');
      const label = required(context, 'label', 'billing-sync');
      const scope = typeof context.values.scope === 'string' ? context.values.scope : undefined;
      const key = await withServices(context.config, (services) =>
        services.apiKeys.create({ companySlug, label, ...(scope ? { scope } : {}) }),
      );
      if (context.values.json) {
        printJson(context.io, key);
      } else {
        context.io.out(
          [
            `Created API key "${key.label}" (id ${key.id}, scope ${key.scope}) for ${key.company}.`,
            '',
            `  ${key.key}`,
            '',
            'This is the only time the key is shown: store it in your secret manager now.',
          ].join('\n'),
        );
      }
      return 0;
    },
  },
  {
    path: ['keys', 'list'],
    options: { json, company: { type: 'string' } },
    async run(context) {
      const companySlug = required(context, 'company', 'acme');
      const keys = await withServices(context.config, (services) => services.apiKeys.list(companySlug));
      if (context.values.json) printJson(context.io, keys);
      else if (keys.length === 0) context.io.out(`No API keys for ${companySlug}.`);
      else printTable(context.io, ['ID', 'LABEL', 'KEY', 'SCOPE', 'CREATED', 'LAST USED', 'STATUS'], keys.map(keyRow));
      return 0;
    },
  },
  {
    path: ['users', 'create'],
    options: { json, company: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    async run(context) {
      const companySlug = required(context, 'company', 'acme');
      const email = required(context, 'email', 'admin@example.com');
      const role = required(context, 'role', 'admin');
      const password = await readPipedPassword(context.io);
      const { user, generatedPassword } = await withServices(context.config, (services) =>
        services.users.create({ companySlug, email, role, ...(password !== undefined ? { password } : {}) }),
      );
      if (context.values.json) {
        printJson(context.io, generatedPassword === null ? user : { ...user, password: generatedPassword });
        return 0;
      }
      const lines = [`Created ${user.role} ${user.email} for ${user.company}; they can sign in to the dashboard now.`];
      if (generatedPassword !== null) {
        lines.push('', `  Password: ${generatedPassword}`, '', 'This is the only time the password is shown: hand it over securely.');
      }
      context.io.out(lines.join('\n'));
      return 0;
    },
  },
  {
    path: ['users', 'list'],
    options: { json, company: { type: 'string' } },
    async run(context) {
      const companySlug = required(context, 'company', 'acme');
      const users = await withServices(context.config, (services) => services.users.list(companySlug));
      if (context.values.json) printJson(context.io, users);
      else if (users.length === 0) context.io.out(`No dashboard users for ${companySlug}.`);
      else printTable(context.io, ['ID', 'EMAIL', 'ROLE', 'CREATED'], users.map(userRow));
      return 0;
    },
  },
  {
    path: ['keys', 'revoke'],
    options: { json },
    async run({ config, positionals, values, io }) {
      const id = positionals[0];
      if (id === undefined) throw new AppError('BAD_USER_INPUT', 'name the key to revoke by its id, from "netgraph keys list"');
      const key = await withServices(config, (services) => services.apiKeys.revoke(id));
      if (values.json) printJson(io, key);
      else io.out(`netgraph keys revoke: "${key.label}" (${key.id}) is revoked; requests with it now get 401.`);
      return 0;
    },
  },
  { path: ['simulate'], options: SIMULATE_OPTIONS, run: (context) => simulate(context, withServices) },
  { path: ['collector'], options: COLLECTOR_OPTIONS, run: collector },
  {
    path: ['audit', 'list'],
    options: { json, company: { type: 'string' }, since: { type: 'string' } },
    async run({ config, values, io }) {
      const companySlug = typeof values.company === 'string' ? values.company : undefined;
      const since = typeof values.since === 'string' ? values.since : undefined;
      const entries = await withServices(config, (services) =>
        services.audit.list({ ...(companySlug !== undefined ? { companySlug } : {}), ...(since !== undefined ? { since } : {}) }),
      );
      if (values.json) printJson(io, entries);
      else if (entries.length === 0) io.out('No audit entries.');
      else printTable(io, ['OCCURRED', 'COMPANY', 'ACTOR', 'ACTION', 'OBJECT'], entries.map(auditRow));
      return 0;
    },
  },
  ...webhookCommands(withServices),
];
