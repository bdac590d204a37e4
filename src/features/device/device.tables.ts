import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The device feature's tables: a network's virtual devices and the hardware behind them. */
export interface DeviceTables {
  virtual_devices: VirtualDeviceTable;
  hardware_devices: HardwareDeviceTable;
}

export interface VirtualDeviceTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  network_id: number;
  label: string;
  device_type: string;
  device_model: string;
  is_online: BoolColumn;
}

export interface HardwareDeviceTable {
  id: Generated<number>;
  company_id: number;
  serial_number: string;
  device_type: string;
  device_model: string;
  is_connected_to_backend: BoolColumn;
  virtual_device_id: number | null;
  /** The latest observedAt of the device's reports; null until the first. */
  last_seen_at: Generated<string | null>;
  /** Online as the offline checker last saw it; null until the first report (then is_connected_to_backend stands). */
  reported_online: Generated<BoolColumn | null>;
  uptime_seconds: Generated<number | null>;
  mac_address: Generated<string | null>;
  /** The observedAt of the report the latest state (ports, radios, clients, uptime, MAC) came from. */
  state_observed_at: Generated<string | null>;
  /** The network spare hardware is placed at; null when placed nowhere. */
  spare_network_id: Generated<number | null>;
  /** CPU load in percent from the latest report with one (migration 0013). */
  cpu_percent: Generated<number | null>;
  memory_used_bytes: Generated<number | null>;
  memory_total_bytes: Generated<number | null>;
  /** Where the latest report came from (migration 0022): COLLECTOR or REPORTS, the reporting key's label, the report's time. */
  source_kind: Generated<string | null>;
  source_name: Generated<string | null>;
  source_at: Generated<string | null>;
  /** A collector's last poll: its error (null when it answered) and duration. */
  source_poll_error: Generated<string | null>;
  source_poll_ms: Generated<number | null>;
}
