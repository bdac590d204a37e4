import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { RowColumn, SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/tables.js';
import { createRowWriter, takeExcluded } from './report-rows.repository.js';
import type { DeviceList } from './report-state.repository.js';
import type { ClientReport } from './report.protocol.js';

/** A device's complete client set seen at `observedAt`, for the network its virtual device is in. */
export interface ClientSet extends DeviceList<ClientReport> {
  readonly networkId: number;
}

const SETS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
];

const CLIENTS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['mac_address', 'text'],
  ['ip', 'text'],
  ['last_seen', 'timestamptz'],
  ['is_connected', 'boolean'],
  ['hostname', 'text'],
  ['is_wireless', 'boolean'],
  ['signal', 'integer'],
  ['vlan_id', 'integer'],
  ['ssid', 'text'],
  ['port_number', 'integer'],
  ['hardware_device_id', 'bigint'],
];

/** What the roamed-session update needs of the listed clients: fewer arrays to send and parse. */
const LISTED_AT: readonly RowColumn[] = CLIENTS.filter(([n]) => ['network_id', 'mac_address', 'last_seen', 'hardware_device_id'].includes(n));

const SESSIONS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['mac_address', 'text'],
  ['hardware_device_id', 'bigint'],
  ['ssid', 'text'],
  ['vlan_id', 'integer'],
  ['signal', 'integer'],
  ['ip', 'text'],
  ['hostname', 'text'],
  ['first_seen', 'timestamptz'],
  ['last_seen', 'timestamptz'],
];

const ROAMED: readonly RowColumn[] = [
  ['id', 'bigint'],
  ['ended_at', 'timestamptz'],
];

/** Where and when the sets of one request list each client: network and MAC to the listing devices and times. */
export type BatchListings = ReadonlyMap<string, readonly { readonly deviceId: number; readonly at: number }[]>;

/** The listings of `sets`, for mergeClientSets. */
export function listingsOf(sets: readonly ClientSet[]): BatchListings {
  const out = new Map<string, { deviceId: number; at: number }[]>();
  for (const set of sets) {
    const at = Date.parse(set.observedAt);
    for (const c of set.items) {
      const key = `${set.networkId}/${c.macAddress}`;
      const listings = out.get(key);
      if (listings === undefined) out.set(key, [{ deviceId: set.deviceId, at }]);
      else listings.push({ deviceId: set.deviceId, at });
    }
  }
  return out;
}

/** A session that a set has just ended because it no longer lists the client. */
interface DepartedSession {
  readonly id: number | string;
  readonly network_id: number | string;
  readonly mac_address: string;
  readonly hardware_device_id: number | string;
  readonly last_seen: Date | string;
  readonly ended_at: Date | string;
}

const epochMs = (value: Date | string): number => (value instanceof Date ? value.getTime() : Date.parse(value));

/**
 * The departed sessions whose client another device of the batch listed
 * after the session's last sighting and before the set that dropped it:
 * the client had roamed by then, so the session ends at that first listing.
 */
function roamedBefore(departed: readonly DepartedSession[], batch: BatchListings): { id: number | string; ended_at: string }[] {
  const out: { id: number | string; ended_at: string }[] = [];
  for (const session of departed) {
    const from = epochMs(session.last_seen);
    const until = epochMs(session.ended_at);
    let first = until;
    for (const listing of batch.get(`${session.network_id}/${session.mac_address}`) ?? []) {
      if (listing.deviceId !== Number(session.hardware_device_id) && listing.at >= from && listing.at < first) first = listing.at;
    }
    if (first < until) out.push({ id: session.id, ended_at: new Date(first).toISOString() });
  }
  return out;
}

/** The SQL of a network's clients as reports list them: who is connected through which device, and their history. */
export function createReportClientRepository(db: Kysely<Database>, dialect: SqlDialect) {
  const rows = createRowWriter(db, dialect);

  return {
    /**
     * Merges devices' complete client sets into their networks, as if one
     * set after the other: listed clients are connected through the device
     * unless a later report (of any device) listed them; a device's clients
     * missing from its set are no longer connected. Imported clients (no
     * reporting device) stop being connected at the network's first client
     * report. Client history: a session on a device goes on while the device
     * keeps listing the client; it ends when the device's set leaves it out
     * or it shows up on another device (which opens a new one).
     *
     * The "not listed" conditions are NOT IN lists, which SQLite builds
     * once, where a correlated NOT EXISTS would scan the list for every row.
     * No client (network and MAC) may be in two of the sets: PostgreSQL
     * updates a row at most once per statement, and the order between two
     * sets listing one client matters (see clientRounds). `batch` is every
     * set of the request (listingsOf), whichever round: a session that a
     * set ends because it no longer lists the client ends when another
     * device of the batch listed the client first, if that was earlier.
     */
    async mergeClientSets(sets: readonly ClientSet[], batch: BatchListings): Promise<void> {
      if (sets.length === 0) return;
      const networkIds = [...new Set(sets.map((s) => s.networkId))];
      const deviceIds = sets.map((s) => s.deviceId);
      const devices = sets.map((s) => ({ network_id: s.networkId, device_id: s.deviceId, observed_at: s.observedAt }));
      const listed = sets.flatMap((s) =>
        s.items.map((c) => ({
          network_id: s.networkId,
          mac_address: c.macAddress,
          ip: c.ip,
          last_seen: s.observedAt,
          is_connected: true,
          hostname: c.hostname,
          is_wireless: c.isWireless,
          signal: c.signal,
          vlan_id: c.vlanID,
          ssid: c.ssid,
          port_number: c.portNumber,
          hardware_device_id: s.deviceId,
        })),
      );
      const listedOf = (alias: string) => rows.source(alias, CLIENTS.filter(([n]) => n === 'mac_address' || n === 'hardware_device_id'), listed);
      // the conditions are network_clients_unreported_idx's (migration 0045): it holds only the rows this updates
      await sql`UPDATE network_clients SET is_connected = false
        WHERE ${dialect.inValues('network_id', 'bigint', networkIds)}
          AND hardware_device_id IS NULL AND is_connected = true`.execute(db);
      // the inValues conditions (here and below) repeat the join's for the planner: see SqlDialect.inValues
      await sql`UPDATE network_clients SET is_connected = false
        FROM ${rows.source('d', SETS, devices)}
        WHERE ${dialect.inValues('network_clients.hardware_device_id', 'bigint', deviceIds)}
          AND network_clients.hardware_device_id = d.device_id AND network_clients.is_connected = true
          AND network_clients.last_seen <= d.observed_at
          AND (network_clients.hardware_device_id, network_clients.mac_address) NOT IN (SELECT hardware_device_id, mac_address FROM ${listedOf('k')})`.execute(db);
      await rows.insert(
        'network_clients',
        CLIENTS,
        listed,
        sql`ON CONFLICT (network_id, mac_address) DO UPDATE SET ${takeExcluded(CLIENTS.slice(2).map(([n]) => n))}
          WHERE network_clients.hardware_device_id IS NULL OR network_clients.last_seen <= excluded.last_seen`,
      );
      await recordSessions({ devices, deviceIds, networkIds, batch }, listed, listedOf);
    },
  };

  /** The history half of mergeClientSets: end the departed clients' sessions and the roamed ones', then open or extend. */
  async function recordSessions(
    sets: { devices: readonly Record<string, unknown>[]; deviceIds: readonly number[]; networkIds: readonly number[]; batch: BatchListings },
    listed: readonly Record<string, unknown>[],
    listedOf: (alias: string) => ReturnType<typeof rows.source>,
  ): Promise<void> {
    const departed = await sql<DepartedSession>`UPDATE client_sessions SET ended_at = d.observed_at
      FROM ${rows.source('d', SETS, sets.devices)}
      WHERE ${dialect.inValues('client_sessions.hardware_device_id', 'bigint', sets.deviceIds)}
        AND client_sessions.network_id = d.network_id AND client_sessions.hardware_device_id = d.device_id
        AND client_sessions.ended_at IS NULL AND client_sessions.last_seen <= d.observed_at
        AND (client_sessions.hardware_device_id, client_sessions.mac_address) NOT IN (SELECT hardware_device_id, mac_address FROM ${listedOf('k')})
      RETURNING client_sessions.id, client_sessions.network_id, client_sessions.mac_address, client_sessions.hardware_device_id,
        client_sessions.last_seen, client_sessions.ended_at`.execute(db);
    const roamed = roamedBefore(departed.rows, sets.batch);
    if (roamed.length > 0) {
      await sql`UPDATE client_sessions SET ended_at = r.ended_at FROM ${rows.source('r', ROAMED, roamed)}
        WHERE ${dialect.inValues('client_sessions.id', 'bigint', roamed.map((r) => r.id))} AND client_sessions.id = r.id`.execute(db);
    }
    if (listed.length === 0) return;
    await sql`UPDATE client_sessions SET ended_at = k.last_seen
      FROM ${rows.source('k', LISTED_AT, listed)}
      WHERE ${dialect.inValues('client_sessions.network_id', 'bigint', sets.networkIds)}
        AND client_sessions.network_id = k.network_id AND client_sessions.mac_address = k.mac_address
        AND client_sessions.ended_at IS NULL AND client_sessions.last_seen <= k.last_seen
        AND (client_sessions.hardware_device_id IS NULL OR client_sessions.hardware_device_id <> k.hardware_device_id)`.execute(db);
    const sessions = listed.map((c) => ({ ...c, first_seen: c.last_seen }));
    await rows.insert(
      'client_sessions',
      SESSIONS,
      sessions,
      sql`ON CONFLICT (network_id, mac_address) WHERE ended_at IS NULL DO UPDATE SET ${takeExcluded(['last_seen', 'ssid', 'vlan_id', 'signal', 'ip', 'hostname'])}
        WHERE client_sessions.hardware_device_id = excluded.hardware_device_id AND client_sessions.last_seen <= excluded.last_seen`,
    );
  }
}
