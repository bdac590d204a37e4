/** The MAC table feature's table. */
export interface MacTableTables {
  switch_mac_entries: SwitchMacEntryTable;
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
