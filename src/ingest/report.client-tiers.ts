import type { Insertable } from 'kysely';
import type { BoolColumn } from '../db/columns.js';
import type { Database } from '../db/tables.js';
import { CLIENT_AVERAGED_METRICS } from '../kernel/telemetry.js';

/**
 * The tiers of the client metric rollups (migrations 0036 and 0044), as
 * ingest folds them. A 5-minute row's network, kind (is_wireless) and band
 * are its last sample's, so a later batch may change them: its tier rows
 * then move. Per batch, the tiers change exactly as the 5-minute rows of
 * their buckets do.
 */

/** What places a 5-minute client metric rollup in a tier row, as the store returns it (ids and buckets may come as text). */
export interface ClientTierPlace {
  readonly hardware_device_id: number | string;
  readonly mac_address: string;
  readonly bucket: number | string;
  readonly network_id: number | string;
  readonly is_wireless: BoolColumn;
  readonly radio_band: string | null;
}

/** The counts and sums of the averaged metrics a row carries, by column. */
type Sums = Readonly<Record<`${(typeof CLIENT_AVERAGED_METRICS)[number]}_${'count' | 'sum'}`, number | string>>;

/** A stored 5-minute client metric rollup with its counts and sums. */
export type StoredClientRollup = ClientTierPlace & Sums;

/**
 * How a 5-minute row changes the tiers, at its 5-minute bucket: at its place,
 * `row_count` 5-minute rows (1 joins, -1 leaves, 0 stays) and the counts and
 * sums to add.
 */
export type ClientTierRow = Omit<ClientTierPlace, 'radio_band'> & { readonly radio_band: string; readonly row_count: number } & Readonly<Record<keyof Sums, number>>;

const keyOf = (row: { readonly hardware_device_id: unknown; readonly mac_address: string; readonly bucket: unknown }) =>
  `${String(row.hardware_device_id)}/${row.mac_address}/${String(row.bucket)}`;

/** The same tier row's place: network, kind and band. */
const samePlace = (a: ClientTierPlace, b: ClientTierPlace) =>
  String(a.network_id) === String(b.network_id) && Boolean(a.is_wireless) === Boolean(b.is_wireless) && (a.radio_band ?? '') === (b.radio_band ?? '');

/**
 * A tier row at `place`'s 5-minute bucket: `rows` 5-minute rows and the
 * counts and sums of `sums`, times `sign`. One object literal of the row's
 * columns (ClientTierRow requires each metric of CLIENT_AVERAGED_METRICS, so
 * a metric added there fails to compile here): built key by key from
 * template strings, one per metric and column, it cost 2.1% of a PostgreSQL
 * worker's CPU in ingest (docs/benchmarks.md).
 */
function tierRow(place: ClientTierPlace, rows: number, sums: Sums, sign: 1 | -1): ClientTierRow {
  return {
    hardware_device_id: Number(place.hardware_device_id),
    bucket: Number(place.bucket),
    mac_address: place.mac_address,
    network_id: Number(place.network_id),
    is_wireless: Boolean(place.is_wireless),
    radio_band: place.radio_band ?? '',
    row_count: rows,
    signal_count: sign * Number(sums.signal_count),
    signal_sum: sign * Number(sums.signal_sum),
    snr_count: sign * Number(sums.snr_count),
    snr_sum: sign * Number(sums.snr_sum),
    rx_rate_count: sign * Number(sums.rx_rate_count),
    rx_rate_sum: sign * Number(sums.rx_rate_sum),
    tx_rate_count: sign * Number(sums.tx_rate_count),
    tx_rate_sum: sign * Number(sums.tx_rate_sum),
  };
}

/**
 * How a batch's 5-minute client metric rollups (`batch`, one per device,
 * client and bucket) change the tiers, at their 5-minute buckets: `stored`
 * are the 5-minute rows before the batch's upsert, `placed` the places the
 * upsert returned. A new 5-minute row adds itself; one that stays in place
 * adds the batch's counts and sums; one whose last sample moved it (another
 * network, kind or band) leaves its old tier row whole and joins the new one.
 */
export function clientTierChanges(
  batch: readonly Insertable<Database['client_metric_rollups']>[],
  stored: readonly StoredClientRollup[],
  placed: readonly ClientTierPlace[],
): ClientTierRow[] {
  const held = new Map(stored.map((row) => [keyOf(row), row]));
  const places = new Map(placed.map((row) => [keyOf(row), row]));
  return batch.flatMap((rollup) => {
    const key = keyOf(rollup);
    const old = held.get(key);
    const place = places.get(key) ?? (rollup as unknown as ClientTierPlace);
    const own = rollup as unknown as Sums;
    if (old === undefined) return [tierRow(place, 1, own, 1)];
    if (samePlace(old, place)) return [tierRow(place, 0, own, 1)];
    return [tierRow(old, -1, old, -1), tierRow(place, 1, old, 1), tierRow(place, 0, own, 1)];
  });
}

/** A change of a client SNR tier (migration 0044): a device's wireless clients' SNR count and sum to add in a bucket. */
export type ClientSnrChange = Insertable<Database['client_snr_rollups_hourly']>;

/** A change of a client band tier (migration 0044): how many 5-minute rows of a wireless client with a band join (or leave, below 0) a bucket. */
export type ClientBandChange = Insertable<Database['client_band_rollups_hourly']>;
