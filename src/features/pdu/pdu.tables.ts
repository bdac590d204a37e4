import type { BoolColumn } from '../../db/columns.js';

/** The PDU feature's table: each outlet's latest state (its readings are ingest's series). */
export interface PduTables {
  pdu_outlets: PduOutletTable;
}

/** A PDU's outlet as its latest report with `outlets` listed it (migration 0016). */
export interface PduOutletTable {
  hardware_device_id: number;
  outlet_number: number;
  label: string | null;
  is_on: BoolColumn | null;
  current_amps: number | null;
  power_watts: number | null;
  voltage_volts: number | null;
  energy_kwh: number | null;
  observed_at: string;
}
