import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/tables.js';
import type { TestApp } from './app.js';

/** How many rows `table` (any table of the store, a tier or a partitioned one) holds. */
export async function rowCount<DB>(db: Kysely<DB>, table: string): Promise<number> {
  return Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0]?.n);
}

/**
 * What the device reports of a company stored, row by row, for the tests of
 * ingest, retention and the demo's simulator: the facts the API does not
 * publish (the times of a device's latest report, the raw series and their
 * rollups, client sessions, an event's source and serial number), read from
 * the tables. What the API does publish, such as whether a device is online
 * and which clients are connected, the tests read through the API
 * (`isConnectedToBackend` and `connectedClients` below), so the rules
 * behind it are the server's, never a copy of them here.
 */
export function storedReports(db: Kysely<Database>) {
  const network = (companyId: number, networkUUID: string) =>
    db.selectFrom('networks').select('id').where('company_id', '=', companyId).where('uuid', '=', networkUUID);
  const device = (companyId: number, serial: string) =>
    db.selectFrom('hardware_devices').select('id').where('company_id', '=', companyId).where('serial_number', '=', serial);

  return {
    /** The device's latest report as stored (times, uptime, MAC address, ports, radios); undefined for a serial number the company does not have. */
    async deviceState(companyId: number, serialNumber: string) {
      const row = await db
        .selectFrom('hardware_devices')
        .select(['id', 'serial_number', 'last_seen_at', 'state_observed_at', 'uptime_seconds', 'mac_address'])
        .where('company_id', '=', companyId)
        .where('serial_number', '=', serialNumber)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const ports = await db.selectFrom('device_ports').selectAll().where('hardware_device_id', '=', row.id).orderBy('port_number').execute();
      const radios = await db.selectFrom('device_radios').selectAll().where('hardware_device_id', '=', row.id).orderBy('bssid').execute();
      return {
        serialNumber: row.serial_number,
        lastSeenAt: row.last_seen_at,
        stateObservedAt: row.state_observed_at,
        uptimeSeconds: row.uptime_seconds === null ? null : Number(row.uptime_seconds),
        macAddress: row.mac_address,
        ports,
        radios,
      };
    },

    /** The network's client rows marked connected, by MAC address, with the serial number of the device that listed each last (null: imported). */
    async clientRows(companyId: number, networkUUID: string) {
      return db
        .selectFrom('network_clients as c')
        .leftJoin('hardware_devices as h', 'h.id', 'c.hardware_device_id')
        .select(['c.mac_address as macAddress', 'c.ip', 'c.hostname', 'c.is_wireless as isWireless', 'c.signal', 'c.vlan_id as vlanID', 'c.ssid', 'c.port_number as portNumber', 'c.last_seen as lastSeen', 'h.serial_number as serialNumber'])
        .where('c.network_id', '=', network(companyId, networkUUID))
        .where('c.is_connected', '=', true)
        .orderBy('c.mac_address')
        .execute();
    },

    /** The network's client history, oldest first. */
    async clientSessions(companyId: number, networkUUID: string) {
      return db
        .selectFrom('client_sessions as s')
        .leftJoin('hardware_devices as h', 'h.id', 's.hardware_device_id')
        .select(['s.mac_address as macAddress', 'h.serial_number as serialNumber', 's.ssid', 's.vlan_id as vlanID', 's.signal', 's.ip', 's.hostname', 's.first_seen as firstSeen', 's.last_seen as lastSeen', 's.ended_at as endedAt'])
        .where('s.network_id', '=', network(companyId, networkUUID))
        .orderBy('s.first_seen')
        .orderBy('s.mac_address')
        .orderBy('s.id')
        .execute();
    },

    /** A page of the network's event log as stored, newest first, and how many events match. */
    async events(companyId: number, networkUUID: string, filter: { limit: number; offset?: number; types?: readonly string[] }) {
      let query = db.selectFrom('events as e').where('e.network_id', '=', network(companyId, networkUUID));
      if (filter.types !== undefined && filter.types.length > 0) query = query.where('e.type', 'in', filter.types);
      const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      const events = await query
        .leftJoin('hardware_devices as h', 'h.id', 'e.hardware_device_id')
        .leftJoin('virtual_devices as v', 'v.id', 'e.virtual_device_id')
        .select(['e.uuid', 'e.type', 'e.observed_at as observedAt', 'e.details', 'e.source', 'h.serial_number as serialNumber', 'v.uuid as virtualDeviceUUID'])
        .orderBy('e.observed_at', 'desc')
        .orderBy('e.id', 'desc')
        .limit(filter.limit)
        .offset(filter.offset ?? 0)
        .execute();
      return { total: Number(total?.n ?? 0), events };
    },

    /** The network's raw series and rollups, oldest first. */
    async networkTelemetry(companyId: number, networkUUID: string) {
      const id = network(companyId, networkUUID);
      return {
        uplinkSamples: await db.selectFrom('uplink_samples').selectAll().where('network_id', '=', id).orderBy('observed_at').orderBy('port_number').execute(),
        uplinkRollups: await db.selectFrom('uplink_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').orderBy('port_number').execute(),
        clientObservations: await db.selectFrom('client_observations').selectAll().where('network_id', '=', id).orderBy('observed_at').orderBy('mac_address').execute(),
        // a client counted in a bucket, as many as the presence rows' MAC addresses (migration 0043)
        clientPresence: (await db.selectFrom('client_presence_set_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').orderBy('hardware_device_id').execute()).flatMap((row) =>
          [true, false].flatMap((isWireless) =>
            (JSON.parse(isWireless ? row.wireless_macs : row.wired_macs) as string[]).map((mac) => ({ bucket: Number(row.bucket), hardware_device_id: Number(row.hardware_device_id), mac_address: mac, is_wireless: isWireless })),
          ),
        ),
        reportCounts: await db.selectFrom('report_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').execute(),
      };
    },

    /** The device's port counter readings and their 5-minute rollups, oldest first. */
    async deviceTelemetry(companyId: number, serialNumber: string) {
      const id = device(companyId, serialNumber);
      return {
        portCounters: await db.selectFrom('port_counters').selectAll().where('hardware_device_id', '=', id).orderBy('observed_at').orderBy('port_number').execute(),
        counterRollups: await db.selectFrom('port_counter_rollups').selectAll().where('hardware_device_id', '=', id).orderBy('bucket').orderBy('port_number').execute(),
      };
    },
  };
}

/** Whether the API says the hardware device is connected (HardwareDevice.isConnectedToBackend); undefined for none. */
export async function isConnectedToBackend(app: TestApp, serialNumber: string): Promise<boolean | undefined> {
  const answer = await app.graphql('query ($s: String!) { hardwareDevice(serialNumber: $s) { isConnectedToBackend } }', { variables: { s: serialNumber } });
  const device = (answer.body as { data?: { hardwareDevice: { isConnectedToBackend: boolean } | null } }).data?.hardwareDevice;
  if (device === undefined) throw new Error(`hardwareDevice answered ${answer.text}`);
  return device?.isConnectedToBackend;
}

/**
 * The clients the API lists as connected to the network (networkClients,
 * by MAC address), each as stored, with the serial number of the device
 * whose report listed it last (null for an imported client).
 */
export async function connectedClients(app: TestApp, companyId: number, networkUUID: string) {
  const answer = await app.graphql('query ($n: UUID!) { networkClients(networkUUID: $n) { macAddress } }', { variables: { n: networkUUID } });
  const listed = (answer.body as { data?: { networkClients: { macAddress: string }[] | null } }).data?.networkClients;
  if (!listed) throw new Error(`networkClients answered ${answer.text}`);
  const macs = new Set(listed.map((c) => c.macAddress));
  const rows = await storedReports(app.server.store.db).clientRows(companyId, networkUUID);
  return rows.filter((row) => macs.has(row.macAddress));
}
