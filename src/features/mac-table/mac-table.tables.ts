/** The MAC table feature's tables: the switches' latest tables and their history. */
export interface MacTableTables {
  switch_mac_entries: SwitchMacEntryTable;
  switch_mac_history: SwitchMacHistoryTable;
}

/** A switch's MAC forwarding table entry, from its latest report with `macTable` (migration 0012). */
export interface SwitchMacEntryTable {
  hardware_device_id: number;
  mac_address: string;
  /** 0: the bridge has no VLANs. */
  vlan_id: number;
  port_number: number;
  /** The observedAt of the report that first listed the entry on this port. */
  updated_at: string;
}

/**
 * An interval `[first_seen_at, gone_at)` during which a switch's table held
 * an entry on one port (migration 0038): written by ingest when the entry
 * appears and when it goes.
 */
export interface SwitchMacHistoryTable {
  hardware_device_id: number;
  mac_address: string;
  /** 0: the bridge has no VLANs. */
  vlan_id: number;
  port_number: number;
  /** The observedAt of the report that first listed the entry on this port (switch_mac_entries.updated_at while it stays). */
  first_seen_at: string;
  /** The observedAt of the first report that no longer listed it on this port; null while the latest table does. */
  gone_at: string | null;
}
