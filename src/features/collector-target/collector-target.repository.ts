import type { SqlContext } from '../../db/store.js';
import type { SnmpColumns, StoredSnmp } from '../../kernel/snmp-target.js';

/** A target row as stored: its sealed credentials, its settings' JSON lists as text. */
export interface TargetRow extends StoredSnmp {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly virtualDeviceUuid: string;
  readonly networkUuid: string;
  /** The serial number of the hardware assigned to its virtual device; null while none is. */
  readonly serialNumber: string | null;
  readonly host: string;
  readonly port: number;
  readonly intervalSeconds: number;
  readonly uplinks: string;
  readonly uplinkProbes: string;
}

/** The columns a target's settings are stored in. */
export interface TargetValues extends SnmpColumns {
  readonly host: string;
  readonly port: number;
  readonly interval_seconds: number;
  readonly uplinks: string;
  readonly uplink_probes: string;
}

/** SQL of collector targets. Every lookup takes the company, so another company's target is never found. */
export function createCollectorTargetRepository({ db }: SqlContext) {
  const targets = () =>
    db
      .selectFrom('collector_targets as t')
      .innerJoin('virtual_devices as v', 'v.id', 't.virtual_device_id')
      .innerJoin('networks as n', 'n.id', 'v.network_id')
      .leftJoin('hardware_devices as h', 'h.virtual_device_id', 'v.id')
      .select([
        't.id',
        't.uuid',
        't.company_id as companyId',
        'v.uuid as virtualDeviceUuid',
        'n.uuid as networkUuid',
        'h.serial_number as serialNumber',
        't.host',
        't.port',
        't.snmp_version as snmpVersion',
        't.snmp_user as snmpUser',
        't.snmp_level as snmpLevel',
        't.auth_protocol as authProtocol',
        't.priv_protocol as privProtocol',
        't.credentials',
        't.interval_seconds as intervalSeconds',
        't.uplinks',
        't.uplink_probes as uplinkProbes',
      ]);
  const toRow = (row: Omit<TargetRow, 'id' | 'companyId' | 'port' | 'intervalSeconds'> & Record<'id' | 'companyId' | 'port' | 'intervalSeconds', number | string>): TargetRow => ({
    ...row,
    id: Number(row.id),
    companyId: Number(row.companyId),
    port: Number(row.port),
    intervalSeconds: Number(row.intervalSeconds),
  });

  return {
    /** The company's target with this UUID; undefined for another company's. */
    async find(companyId: number, uuid: string): Promise<TargetRow | undefined> {
      const row = await targets().where('t.company_id', '=', companyId).where('t.uuid', '=', uuid).executeTakeFirst();
      return row && toRow(row);
    },

    /** The company's targets, by host, then UUID. */
    async list(companyId: number): Promise<TargetRow[]> {
      const rows = await targets().where('t.company_id', '=', companyId).orderBy('t.host').orderBy('t.uuid').execute();
      return rows.map(toRow);
    },

    /** The UUID of the target of a virtual device, if it has one. */
    async findByVirtualDevice(virtualDeviceId: number): Promise<string | undefined> {
      const row = await db.selectFrom('collector_targets').select('uuid').where('virtual_device_id', '=', virtualDeviceId).executeTakeFirst();
      return row?.uuid;
    },

    async count(companyId: number): Promise<number> {
      const row = await db.selectFrom('collector_targets').select((eb) => eb.fn.countAll<number>().as('n')).where('company_id', '=', companyId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async insert(companyId: number, uuid: string, virtualDeviceId: number, values: TargetValues, at: string): Promise<void> {
      await db
        .insertInto('collector_targets')
        .values({ uuid, company_id: companyId, virtual_device_id: virtualDeviceId, ...values, created_at: at, updated_at: at })
        .execute();
    },

    async update(id: number, values: TargetValues, at: string): Promise<void> {
      await db.updateTable('collector_targets').set({ ...values, updated_at: at }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('collector_targets').where('id', '=', id).execute();
    },
  };
}

export type CollectorTargetRepository = ReturnType<typeof createCollectorTargetRepository>;
