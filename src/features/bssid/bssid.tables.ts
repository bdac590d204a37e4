import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The BSSID feature's table: each radio's latest state. */
export interface BssidTables {
  device_radios: DeviceRadioTable;
}

/** A device's radio (BSSID) as its latest report with radios listed it. */
export interface DeviceRadioTable {
  id: Generated<number>;
  hardware_device_id: number;
  bssid: string;
  radio_band: string;
  ssid: string | null;
  is_active: BoolColumn;
  observed_at: string;
}
