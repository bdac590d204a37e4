import fs from 'node:fs/promises';
import type { Config } from '../config.js';
import { redactUrl } from '../config.js';
import { isMigrated, migrateToLatest } from '../db/migrate.js';
import type { Store } from '../db/store.js';
import { AppError } from '../kernel/errors.js';
import type { AuditEntry } from '../platform/audit/audit.service.js';
import { parseJsonText } from '../kernel/json-input.js';
import { USER_ROLES } from '../features/user/user.service.js';
import type { UserInfo } from '../features/user/user.service.js';
import { openRuntime } from '../runtime.js';
import type { Services } from '../services.js';
import type { CliIo, Command, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import { COLLECTOR_OPTIONS, SIMULATE_OPTIONS } from './options.js';
import { helpCommands } from './help.js';
import { webhookCommands } from './webhooks.command.js';
import { keyCommands } from './keys.command.js';
import { collectorTargetCommands } from './collector-targets.command.js';
import { collectorRangeCommands } from './collector-ranges.command.js';
import { COLLECTOR_DISCOVER_COMMAND } from './collector-discover.command.js';

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

function auditRow(entry: AuditEntry): string[] {
  const who = entry.actor.id === null ? entry.actor.label : `${entry.actor.label} (${entry.actor.id})`;
  return [entry.occurredAt, entry.company, `${entry.actor.type}: ${who}`, entry.action, entry.objectId];
}

/** --company SLUG where a command needs it. */
const COMPANY: OptionSpec = { type: 'string', value: 'SLUG', description: 'the company, by its slug', required: true };
/** --since TIME of the listing commands. */
const SINCE: OptionSpec = { type: 'string', value: 'TIME', description: 'only what happened at or after this time (RFC 3339)', default: 'from the start' };

/** The password piped to stdin (its first line), or undefined to have one generated. */
async function readPipedPassword(io: CliIo): Promise<string | undefined> {
  if (!io.stdinIsPiped?.()) return undefined;
  const firstLine = (await io.readStdin()).split(/\r?\n/)[0] ?? '';
  return firstLine === '' ? undefined : firstLine;
}

function userRow(user: UserInfo): string[] {
  return [user.id, user.email, user.role, user.createdAt];
}

/** Every command of the CLI, in the order `netgraph help` lists them; help, suggestions and completion read these declarations. */
export const COMMANDS: readonly Command[] = [
  {
    path: ['serve'],
    summary: 'run the API server and the dashboard (also: npm start)',
    options: {
      port: { type: 'string', value: 'N', description: 'the port to listen on; 0 picks a free one', default: '$PORT, else 4000' },
      host: { type: 'string', value: 'HOST', description: 'the address to listen on', default: '$HOST, else 127.0.0.1' },
      workers: { type: 'string', value: 'N', description: 'processes sharing the port, from 1 to 64', default: '1' },
    },
    examples: ['netgraph serve --port 8080 --host 0.0.0.0 --workers 2'],
    // the server, the simulator and the collector load when they run: other commands start without them (options.ts)
    run: async (context) => (await import('./serve.js')).serve(context),
  },
  {
    path: ['migrate'],
    summary: 'apply pending database migrations (safe to run twice, and while servers run)',
    options: {},
    examples: ['DATABASE_URL=postgres://localhost/netgraph netgraph migrate'],
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
    summary: 'load a JSON file in the import format, in one transaction: all or nothing',
    operands: { usage: 'FILE', description: 'the file to load (docs/import-format.md); - reads stdin', complete: 'file' },
    options: {},
    examples: ['netgraph import all.json', 'netgraph export --company acme | netgraph import -'],
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
    summary: 'write the import format: every company, or one',
    options: {
      company: { ...COMPANY, description: 'only this company', required: false, default: 'every company' },
      output: { type: 'string', short: 'o', value: 'FILE', description: 'write to this file (atomically) instead of stdout', default: 'stdout', file: true },
    },
    examples: ['netgraph export --company acme --output acme.json'],
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
    summary: 'create a company',
    options: {
      slug: { type: 'string', value: 'SLUG', description: 'its short name in URLs and commands: lowercase letters, digits and dashes', required: true },
      name: { type: 'string', value: 'NAME', description: 'its display name', required: true },
      'website-domain': { type: 'string', value: 'DOMAIN', description: 'its website\'s domain, e.g. acme.example', default: 'none' },
      customer: { type: 'string', value: 'BOOL', description: 'whether it is a customer', choices: ['true', 'false'], default: 'true' },
    },
    examples: ['netgraph company create --slug initech --name "Initech" --website-domain initech.example'],
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
  ...keyCommands(withServices),
  {
    path: ['users', 'create'],
    summary: 'create a dashboard user; the password is read from stdin when piped, else generated and printed once',
    options: {
      company: { ...COMPANY, description: 'the company the user belongs to' },
      email: { type: 'string', value: 'EMAIL', description: 'what they sign in with', required: true },
      role: { type: 'string', value: 'ROLE', description: 'admins also manage keys, users and webhooks', choices: USER_ROLES, required: true },
    },
    examples: ['netgraph users create --company acme --email admin@acme.example --role admin', 'printf \'%s\\n\' "$PASSWORD" | netgraph users create --company acme --email ops@acme.example --role member'],
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
    summary: 'list a company\'s dashboard users: id, email, role, created',
    options: { company: COMPANY },
    examples: ['netgraph users list --company acme'],
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
    path: ['simulate'],
    summary: 'the company\'s (or every company\'s) devices post simulated reports: history first, then live until Ctrl-C',
    options: SIMULATE_OPTIONS,
    examples: ['netgraph simulate --company acme --backfill 24h', 'netgraph simulate --company acme --url https://netgraph.example --key ngk_…'],
    run: async (context) => (await import('./simulate.command.js')).simulate(context, withServices),
  },
  // before `collector`, which would otherwise take `collector targets ...` as its own
  ...collectorTargetCommands(withServices),
  ...collectorRangeCommands(withServices),
  COLLECTOR_DISCOVER_COMMAND,
  {
    path: ['collector'],
    summary: 'polls SNMP devices (netgraph\'s targets for its key, and a configuration file\'s) and sweeps its discovery ranges, posting the reports and the agents found until SIGTERM; --once does each once and prints instead (docs/collector.md)',
    options: COLLECTOR_OPTIONS,
    examples: [
      'netgraph collector --server https://netgraph.example --key-file /etc/netgraph/collector.key',
      'netgraph collector --config collector.json --once',
    ],
    run: async (context) => (await import('./collector.command.js')).collector(context),
  },
  {
    path: ['audit', 'list'],
    summary: 'who changed what, oldest first, with the values before and after',
    options: { company: { ...COMPANY, description: 'only this company', required: false, default: 'every company' }, since: SINCE },
    examples: ['netgraph audit list --company acme --since 2026-11-21T00:00:00Z'],
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
  ...helpCommands(() => COMMANDS),
];
