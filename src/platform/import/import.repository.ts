import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SqlContext, Store } from '../../db/store.js';
import type { Database } from '../../db/tables.js';
import { insertNetworkSecurity, readCompanySecurity } from './import-security.repository.js';
import { insertAlertReceivers, readAlertReceivers } from './import-alerts.repository.js';
import type { ImportClient, ImportCompany, ImportDocument, ImportNetwork, ImportSpareHardware } from './import.schema.js';

/** Rows per INSERT: well under both stores' parameter limits (32,766 on SQLite, 65,535 on PostgreSQL). */
const BATCH_ROWS = 1000;
/** Values per IN list when checking for existing rows. */
const LOOKUP_CHUNK = 500;

/** What already exists in the store among the identifiers of an import. */
export interface ExistingIdentifiers {
  readonly companySlugs: ReadonlySet<string>;
  readonly uuids: ReadonlySet<string>;
  readonly serials: ReadonlySet<string>;
}

/** The tables an import fills (its audit entries, one per company, are left out). */
const LOADED_TABLES = [
  'companies',
  'networks',
  'virtual_devices',
  'hardware_devices',
  'vlans',
  'ssids',
  'network_clients',
  'blocked_clients',
  'firewall_rules',
  'inter_vlan_pairs',
  'ids_ips_configs',
] as const;

/** Counts of what an import wrote. */
export interface ImportCounts {
  companies: number;
  networks: number;
  virtualDevices: number;
  hardwareDevices: number;
  vlans: number;
  ssids: number;
  clients: number;
}

async function inChunks<T>(values: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += LOOKUP_CHUNK) out.push(...(await read(values.slice(i, i + LOOKUP_CHUNK))));
  return out;
}

async function insertBatches<R>(rows: readonly R[], insert: (batch: R[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH_ROWS) await insert(rows.slice(i, i + BATCH_ROWS));
}

/** SQL of bulk import and export. */
export function createImportRepository(store: Store) {
  const { db } = store;

  return {
    /** Which of the given identifiers are taken already, so the import can name them. */
    async findExisting(ids: { companySlugs: string[]; uuids: string[]; serials: string[] }): Promise<ExistingIdentifiers> {
      const companySlugs = await inChunks(ids.companySlugs, (chunk) =>
        db.selectFrom('companies').select('slug as v').where('slug', 'in', chunk).execute(),
      );
      const uuidTables = ['companies', 'networks', 'virtual_devices', 'vlans', 'ssids', 'blocked_clients', 'firewall_rules', 'inter_vlan_pairs', 'ids_ips_configs', 'alert_receivers'] as const;
      const uuids: { v: string }[] = [];
      for (const table of uuidTables) {
        uuids.push(
          ...(await inChunks(ids.uuids, (chunk) => db.selectFrom(table).select('uuid as v').where('uuid', 'in', chunk).execute())),
        );
      }
      const serials = await inChunks(ids.serials, (chunk) =>
        db.selectFrom('hardware_devices').select('serial_number as v').where('serial_number', 'in', chunk).execute(),
      );
      return {
        companySlugs: new Set(companySlugs.map((r) => r.v)),
        uuids: new Set(uuids.map((r) => r.v)),
        serials: new Set(serials.map((r) => r.v)),
      };
    },

    /**
     * Writes the whole document in one transaction: all or nothing.
     * `alsoInTransaction` runs last, inside it, with the companies written
     * (the audit log's entries go there).
     */
    async insertDocument(
      document: ImportDocument,
      alsoInTransaction: (tx: SqlContext, companies: readonly InsertedCompany[]) => Promise<void> = async () => undefined,
    ): Promise<ImportCounts> {
      const counts: ImportCounts = { companies: 0, networks: 0, virtualDevices: 0, hardwareDevices: 0, vlans: 0, ssids: 0, clients: 0 };
      await db.transaction().execute(async (trx) => {
        const inserted: InsertedCompany[] = [];
        for (const company of document.companies) inserted.push({ ...(await insertCompany(trx, company, counts)), company });
        await alsoInTransaction({ db: trx }, inserted);
      });
      return counts;
    },

    /**
     * Gathers the planner's statistics for the tables an import loads, after
     * it committed: nothing else may (autovacuum can be off, as during a
     * restore), and without them PostgreSQL's generic plans guess.
     */
    async analyzeLoaded(): Promise<void> {
      await store.analyze(LOADED_TABLES);
    },

    /** The companies to export, by slug; all when `slug` is undefined. */
    async listCompanies(slug?: string) {
      let query = db.selectFrom('companies').select(['id', 'uuid', 'slug', 'name', 'is_customer', 'website_domain']).orderBy('slug');
      if (slug !== undefined) query = query.where('slug', '=', slug);
      return query.execute();
    },

    /** Everything of one company, in the API's list orders, in a fixed number of statements. */
    async readCompany(companyId: number) {
      const networks = await db
        .selectFrom('networks')
        .selectAll()
        .where('company_id', '=', companyId)
        .orderBy('label')
        .orderBy('uuid')
        .execute();
      const devices = await db
        .selectFrom('virtual_devices')
        .selectAll()
        .where('company_id', '=', companyId)
        .orderBy('label')
        .orderBy('uuid')
        .execute();
      const hardware = await db
        .selectFrom('hardware_devices')
        .selectAll()
        .where('company_id', '=', companyId)
        .orderBy('serial_number')
        .execute();
      const vlans = await db
        .selectFrom('vlans')
        .innerJoin('networks', 'networks.id', 'vlans.network_id')
        .where('networks.company_id', '=', companyId)
        .selectAll('vlans')
        .orderBy('vlans.name')
        .orderBy('vlans.vlan_id')
        .execute();
      const ssids = await db
        .selectFrom('ssids')
        .innerJoin('networks', 'networks.id', 'ssids.network_id')
        .where('networks.company_id', '=', companyId)
        .selectAll('ssids')
        .orderBy('ssids.ssid')
        .execute();
      const clients = await db
        .selectFrom('network_clients')
        .innerJoin('networks', 'networks.id', 'network_clients.network_id')
        .where('networks.company_id', '=', companyId)
        .selectAll('network_clients')
        .orderBy('network_clients.mac_address')
        .execute();
      const alertReceivers = await readAlertReceivers(db, companyId);
      return { networks, devices, hardware, vlans, ssids, clients, security: await readCompanySecurity(db, companyId), alertReceivers };
    },
  };
}

export type ImportRepository = ReturnType<typeof createImportRepository>;

/** A company an import wrote: its id and UUID, and what the document said of it. */
export interface InsertedCompany {
  readonly id: number;
  readonly uuid: string;
  readonly company: ImportCompany;
}

async function insertCompany(trx: Kysely<Database>, company: ImportCompany, counts: ImportCounts): Promise<{ id: number; uuid: string }> {
  const now = new Date().toISOString();
  const uuid = company.uuid ?? randomUUID();
  const { id: companyId } = await trx
    .insertInto('companies')
    .values({ uuid, slug: company.slug, name: company.name, created_at: now, is_customer: company.isCustomer ?? true, website_domain: company.websiteDomain ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  counts.companies += 1;

  const networkIds = new Map<string, number>();
  await insertBatches(company.networks, async (batch) => {
    const rows = await trx
      .insertInto('networks')
      .values(batch.map((n) => networkRow(n, companyId, now)))
      .returning(['id', 'uuid'])
      .execute();
    for (const row of rows) networkIds.set(row.uuid, row.id);
  });
  counts.networks += company.networks.length;

  const devices = company.networks.flatMap((n) => n.virtualDevices.map((d) => ({ d, networkId: networkIds.get(n.UUID) as number })));
  const deviceIds = new Map<string, number>();
  await insertBatches(devices, async (batch) => {
    const rows = await trx
      .insertInto('virtual_devices')
      .values(
        batch.map(({ d, networkId }) => ({
          uuid: d.UUID,
          company_id: companyId,
          network_id: networkId,
          label: d.label,
          device_type: d.deviceType,
          device_model: d.deviceModel,
          is_online: d.isOnline,
        })),
      )
      .returning(['id', 'uuid'])
      .execute();
    for (const row of rows) deviceIds.set(row.uuid, row.id);
  });
  counts.virtualDevices += devices.length;

  const hardware: { h: ImportSpareHardware; deviceId: number | null }[] = [
    ...devices.flatMap(({ d }) => (d.hardwareDevice ? [{ h: d.hardwareDevice, deviceId: deviceIds.get(d.UUID) as number }] : [])),
    ...(company.spareHardwareDevices ?? []).map((h) => ({ h, deviceId: null })),
  ];
  await insertBatches(hardware, async (batch) => {
    await trx
      .insertInto('hardware_devices')
      .values(
        batch.map(({ h, deviceId }) => ({
          company_id: companyId,
          serial_number: h.serialNumber,
          device_type: h.deviceType,
          device_model: h.deviceModel,
          is_connected_to_backend: h.isConnectedToBackend,
          virtual_device_id: deviceId,
          spare_network_id: h.networkUUID === undefined ? null : (networkIds.get(h.networkUUID) ?? null),
        })),
      )
      .execute();
  });
  counts.hardwareDevices += hardware.length;

  const perNetwork = <T>(pick: (n: ImportNetwork) => T[]) =>
    company.networks.flatMap((n) => pick(n).map((item) => ({ item, networkId: networkIds.get(n.UUID) as number })));

  const vlans = perNetwork((n) => n.vlans);
  const vlanIds = new Map<string, number>();
  await insertBatches(vlans, async (batch) => {
    const rows = await trx
      .insertInto('vlans')
      .values(
        batch.map(({ item, networkId }) => ({
          uuid: item.UUID ?? randomUUID(),
          network_id: networkId,
          name: item.name,
          vlan_id: item.vlanID,
          is_enabled: item.isEnabled,
          is_default: item.isDefault ?? false,
          description: item.description ?? null,
          ipv4_client_gateway: item.ipV4ClientGateway ?? null,
          ipv4_client_prefix_length: item.ipV4ClientPrefixLength ?? null,
          ipv4_client_assignment_protocol: item.ipV4ClientAssignmentProtocol ?? null,
        })),
      )
      .returning(['id', 'network_id', 'vlan_id'])
      .execute();
    for (const row of rows) vlanIds.set(`${row.network_id}:${row.vlan_id}`, row.id);
  });
  counts.vlans += vlans.length;

  const ssids = perNetwork((n) => n.ssids);
  await insertBatches(ssids, async (batch) => {
    await trx
      .insertInto('ssids')
      .values(
        batch.map(({ item, networkId }) => ({
          uuid: item.UUID ?? randomUUID(),
          network_id: networkId,
          ssid: item.ssid,
          is_enabled: item.isEnabled,
          is_guest: item.isGuest ?? false,
          is_hidden: item.isHidden ?? false,
          encryption_protocol: item.encryptionProtocol ?? null,
          vlan_id: item.vlanID ?? null,
        })),
      )
      .execute();
  });
  counts.ssids += ssids.length;

  const clients = perNetwork((n) => n.clients);
  await insertBatches(clients, async (batch) => {
    await trx.insertInto('network_clients').values(batch.map(({ item, networkId }) => clientRow(item, networkId))).execute();
  });
  counts.clients += clients.length;
  await insertNetworkSecurity(trx, company.networks, networkIds, vlanIds, now);
  await insertAlertReceivers(trx, companyId, company.alertReceivers ?? [], networkIds, now);
  return { id: companyId, uuid };
}

function networkRow(n: ImportNetwork, companyId: number, now: string) {
  return {
    uuid: n.UUID,
    company_id: companyId,
    slug: n.slug,
    label: n.label,
    is_active: n.isActive,
    mailing_line1: n.mailingAddress?.line1 ?? null,
    mailing_line2: n.mailingAddress?.line2 ?? null,
    mailing_city: n.mailingAddress?.city ?? null,
    mailing_subdivision_code: n.mailingAddress?.subdivisionCode ?? null,
    mailing_postal_code: n.mailingAddress?.postalCode ?? null,
    created_at: now,
  };
}

function clientRow(c: ImportClient, networkId: number) {
  return {
    network_id: networkId,
    mac_address: c.macAddress,
    ip: c.ip,
    last_seen: c.lastSeen,
    is_connected: c.isConnected ?? true,
  };
}
