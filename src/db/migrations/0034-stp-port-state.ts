import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * A port's spanning-tree state (issues 30 and 32), from the devices' reports
 * (docs/reports.md, `interfaces[].stpState`): `stp_state`, replaced with the
 * port list like the port's other state, and `stp_alert`, the block alert
 * the port has open (`BLOCKED` after PORT_BLOCKED, `STP_ERROR` after
 * STP_ERROR_PORT_BLOCKED; null when none), so that the unblocking event
 * follows exactly one blocking event (docs/alerts.md). Additive: both columns
 * are nullable, so servers of the previous version keep working.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema.alterTable('device_ports').addColumn('stp_state', t.text).execute();
  await db.schema.alterTable('device_ports').addColumn('stp_alert', t.text).execute();
}
