import { hardwareIdsOfNetwork } from '../../engine/read.model.js';
import type { SqlContext } from '../../engine/read.model.js';
import { filterAt } from '../metrics/metrics.window.js';

/**
 * The SQL of rogueAccessPointsObservedOnNetwork and
 * honeypotSSIDsObservedOnNetwork: the foreign BSSIDs the access points of
 * the networks heard in the window, grouped per network and BSSID, that a
 * rule selects (docs/schema.md). Parameters are numbered in call order
 * (SQLite's are positional): each builder makes its text left to right.
 */

/** Where the roots' filter holds its MetricsFilterInput. */
export const FOREIGN_TIME_FILTER_PATH = 'filter.timeFilter';

/** The window's end in ms: its endTime, or the request's time. */
const windowEnd = (args: Parameters<Parameters<SqlContext['value']>[1]>[0], now: Date): number => {
  const endTime = filterAt(args, FOREIGN_TIME_FILTER_PATH).endTime;
  return endTime == null ? now.getTime() : Date.parse(endTime);
};

/** The window's start, endTime - durationSeconds of the filter (one parameter). */
const windowFrom = (c: SqlContext): string =>
  c.value('timestamptz', (args, now) => new Date(windowEnd(args, now) - filterAt(args, FOREIGN_TIME_FILTER_PATH).durationSeconds * 1000).toISOString());

/** The window's end, endTime or the request's time (one parameter). */
const windowTo = (c: SqlContext): string => c.value('timestamptz', (args, now) => new Date(windowEnd(args, now)).toISOString());

/** `o.observed_at` inside the window [endTime - durationSeconds, endTime) of the filter. */
export function inWindow(c: SqlContext, o: string): string {
  const from = windowFrom(c);
  return `${o}.observed_at >= ${from} AND ${o}.observed_at < ${windowTo(c)}`;
}

/**
 * True when the observation `o` of the network aliased `n` is of a BSSID
 * none of the network's own access points broadcasts (their radios in their
 * latest reports, bssidsForNetwork with includeInactive).
 */
function notOwnBssid(c: SqlContext, o: string, n: string): string {
  const r = c.alias();
  return `${o}.bssid NOT IN (SELECT ${r}.bssid FROM device_radios ${r} WHERE ${r}.hardware_device_id IN ${hardwareIdsOfNetwork(c.alias(), n)})`;
}

/**
 * The MAC table intervals (alias `m`, switch_mac_history) of the network
 * aliased `n` that put the BSSID `bssid` on the wire during the window: a
 * MAC address its switches held on a port at some time of the window
 * (`[first_seen_at, gone_at)` overlaps `[endTime - durationSeconds,
 * endTime)`; an open interval lasts to now) that agrees with the BSSID in
 * its first five octets (an access point's BSSIDs are usually its wired MAC
 * address with the last octet changed) and is none of the network's own
 * devices' MAC addresses (their reports' macAddress). The range on
 * mac_address says the same as the five octets' equality for MAC addresses
 * as stored (lowercase, colons), so the primary key finds them.
 */
export function wiredEntries(c: SqlContext, m: string, n: string, bssid: string): string {
  const own = c.alias();
  const prefix = `substr(${bssid}, 1, 14)`;
  const devices = `${m}.hardware_device_id IN ${hardwareIdsOfNetwork(c.alias(), n)}`;
  const to = windowTo(c);
  const from = windowFrom(c);
  return (
    `switch_mac_history ${m} WHERE ${devices} ` +
    `AND ${m}.mac_address > ${prefix} AND ${m}.mac_address < ${prefix} || ';' AND substr(${m}.mac_address, 1, 14) = ${prefix} ` +
    `AND ${m}.first_seen_at < ${to} AND (${m}.gone_at IS NULL OR ${m}.gone_at > ${from}) ` +
    `AND ${m}.mac_address NOT IN (SELECT ${own}.mac_address FROM hardware_devices ${own} WHERE ${own}.id IN ${hardwareIdsOfNetwork(c.alias(), n)} AND ${own}.mac_address IS NOT NULL)`
  );
}

/** Which rule selects the foreign BSSIDs: on the wire (rogue), or broadcasting one of the network's SSIDs' names (honeypot). */
export type ForeignRule = 'rogue' | 'honeypot';

/**
 * The derived table of one page of foreign access points: per network of
 * `networkUUIDs` (the caller's company's) and BSSID (and, for honeypots,
 * SSID) that the rule selects, the first and last time it was heard in the
 * window; the most recently heard first, `limit` rows from `offset`. The
 * honeypot rule is one of each scan's SSID; the rogue rule, of the wire over
 * the window, is asked once per BSSID heard, after grouping.
 */
export function foreignAccessPoints(c: SqlContext, rule: ForeignRule): string {
  const n = c.alias();
  const o = c.alias();
  const s = c.alias();
  const honeypot = rule === 'honeypot';
  const keys = `${o}.network_id, ${o}.bssid${honeypot ? `, ${o}.ssid` : ''}`;
  // built in text order: parameters are numbered in call order
  const heard =
    `SELECT ${keys}, min(${o}.observed_at) AS first_observed_at, max(${o}.observed_at) AS last_observed_at ` +
    `FROM networks ${n} JOIN foreign_bssid_observations ${o} ON ${o}.network_id = ${n}.id ` +
    `WHERE ${c.dialect.inList(`${n}.uuid`, c.arg('networkUUIDs'))} AND ${n}.company_id = ${c.company()} AND ${inWindow(c, o)} ` +
    `AND ${notOwnBssid(c, o, n)}` +
    (honeypot ? ` AND ${o}.ssid IN (SELECT ${s}.ssid FROM ssids ${s} WHERE ${s}.network_id = ${n}.id)` : '') +
    ` GROUP BY ${keys}`;
  if (honeypot) return `(${heard} ORDER BY last_observed_at DESC, ${keys} LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`;
  const g = c.alias();
  const gn = c.alias();
  const onWire = `EXISTS (SELECT 1 FROM ${wiredEntries(c, c.alias(), gn, `${g}.bssid`)})`;
  return (
    `(SELECT ${g}.* FROM (${heard}) ${g} JOIN networks ${gn} ON ${gn}.id = ${g}.network_id WHERE ${onWire} ` +
    `ORDER BY ${g}.last_observed_at DESC, ${g}.network_id, ${g}.bssid LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`
  );
}

/**
 * The observers of the foreign access point aliased `f` (its network_id and
 * bssid, and ssid for a honeypot): each access point's latest observation
 * of it in the window.
 */
export function observersOf(c: SqlContext, f: string, rule: ForeignRule): string {
  const o = c.alias();
  const l = c.alias();
  const same = (t: string) => `${t}.network_id = ${f}.network_id AND ${t}.bssid = ${f}.bssid${rule === 'honeypot' ? ` AND ${t}.ssid = ${f}.ssid` : ''}`;
  return (
    `(SELECT ${o}.* FROM foreign_bssid_observations ${o} WHERE ${same(o)} AND ${inWindow(c, o)} ` +
    `AND ${o}.observed_at = (SELECT max(${l}.observed_at) FROM foreign_bssid_observations ${l} ` +
    `WHERE ${same(l)} AND ${l}.hardware_device_id = ${o}.hardware_device_id AND ${inWindow(c, l)}))`
  );
}
