import type { MacTableEntryReport } from './report.protocol.js';

/** One switch's MAC tables of one request, each complete at its observedAt, oldest first. */
export interface MacTableSets {
  readonly deviceId: number;
  readonly sets: readonly { readonly observedAt: string; readonly items: readonly MacTableEntryReport[] }[];
}

/** An entry of a switch's latest table as stored (switch_mac_entries). The row types are type aliases, not interfaces, so the row writer takes them as records. */
export type StoredMacEntry = {
  readonly hardware_device_id: number | string;
  readonly mac_address: string;
  readonly vlan_id: number;
  readonly port_number: number;
  /** The store's text of the time (ISO 8601 on SQLite, PostgreSQL's own form there): it only names the interval to close. */
  readonly updated_at: string;
};

/** A row of switch_mac_entries to write. */
export type MacEntryRow = {
  readonly hardware_device_id: number;
  readonly mac_address: string;
  readonly vlan_id: number;
  readonly port_number: number;
  readonly updated_at: string;
};

/** A row of switch_mac_history to write: an interval opened (gone_at null) or closed. */
export type MacHistoryRow = {
  readonly hardware_device_id: number;
  readonly mac_address: string;
  readonly vlan_id: number;
  readonly port_number: number;
  readonly first_seen_at: string;
  readonly gone_at: string | null;
};

/** What a request's MAC tables change: the latest tables' rows to write and to delete, and the history's intervals. */
export interface MacTableChanges {
  /** Entries of the latest tables that are new, or on another port, or back since an earlier table of the request. */
  readonly changed: MacEntryRow[];
  /** Stored entries the latest tables no longer list. */
  readonly gone: StoredMacEntry[];
  /** Intervals opened or closed, each once (by switch, MAC address, VLAN and first_seen_at). */
  readonly history: MacHistoryRow[];
}

/** An entry a table holds, and since when on its port; `stored` when it is the stored row's. */
interface Held {
  readonly mac: string;
  readonly vlan: number;
  readonly port: number;
  readonly since: string;
  readonly stored: boolean;
}

/**
 * Steps each switch's stored table through the request's tables in order
 * (`stored`: the switches' rows of switch_mac_entries). An entry keeps its
 * interval while each table lists it on the same port; it closes at the
 * first table that lists it on another port (which opens a new one) or not
 * at all. An interval opened and closed by tables of the same time covers
 * no time and is left out. The latest table of each switch is what
 * `changed` and `gone` make of the stored one; an unchanged entry keeps its
 * row and updated_at, which is always its open interval's first_seen_at.
 */
export function macTableChanges(lists: readonly MacTableSets[], stored: readonly StoredMacEntry[]): MacTableChanges {
  const storedBy = new Map<number, Map<string, Held>>();
  for (const row of stored) {
    const device = Number(row.hardware_device_id);
    const table = storedBy.get(device) ?? new Map<string, Held>();
    table.set(entryKey(row.mac_address, row.vlan_id), { mac: row.mac_address, vlan: row.vlan_id, port: row.port_number, since: row.updated_at, stored: true });
    storedBy.set(device, table);
  }
  const changes: MacTableChanges = { changed: [], gone: [], history: [] };
  for (const { deviceId, sets } of lists) {
    const initial = storedBy.get(deviceId) ?? new Map<string, Held>();
    const history = new Map<string, MacHistoryRow>();
    const record = (held: Held, goneAt: string | null) =>
      history.set(`${entryKey(held.mac, held.vlan)}/${held.since}`, {
        hardware_device_id: deviceId,
        mac_address: held.mac,
        vlan_id: held.vlan,
        port_number: held.port,
        first_seen_at: held.since,
        gone_at: goneAt,
      });
    const close = (held: Held, at: string) => {
      if (held.stored || held.since !== at) record(held, at);
    };
    let table = initial;
    for (const { observedAt, items } of sets) {
      const next = new Map<string, Held>();
      for (const e of items) {
        // 0: no VLAN (see migration 0012)
        const vlan = e.vlanID ?? 0;
        const key = entryKey(e.macAddress, vlan);
        const before = table.get(key);
        if (before !== undefined && before.port === e.portNumber) {
          next.set(key, before);
          continue;
        }
        if (before !== undefined) close(before, observedAt);
        next.set(key, { mac: e.macAddress, vlan, port: e.portNumber, since: observedAt, stored: false });
      }
      for (const [key, held] of table) if (!next.has(key)) close(held, observedAt);
      table = next;
    }
    for (const [key, held] of table) {
      if (initial.get(key) === held) continue;
      changes.changed.push({ hardware_device_id: deviceId, mac_address: held.mac, vlan_id: held.vlan, port_number: held.port, updated_at: held.since });
      record(held, null);
    }
    for (const [key, held] of initial) {
      if (!table.has(key)) changes.gone.push({ hardware_device_id: deviceId, mac_address: held.mac, vlan_id: held.vlan, port_number: held.port, updated_at: held.since });
    }
    changes.history.push(...history.values());
  }
  return changes;
}

const entryKey = (mac: string, vlan: number): string => `${mac}/${vlan}`;
