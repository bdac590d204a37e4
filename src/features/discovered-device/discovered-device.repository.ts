import type { SqlContext } from '../../db/store.js';

/** What a collector found at one address, as stored (vendor and model read from sysObjectID). */
export interface FoundAgentValues {
  readonly address: string;
  readonly snmpVersion: string;
  readonly sysName: string | null;
  readonly sysDescr: string | null;
  readonly sysObjectID: string | null;
  readonly vendor: string | null;
  readonly model: string | null;
  readonly serialNumber: string | null;
}

/** A discovered device row. */
export interface DiscoveredDeviceRow extends FoundAgentValues {
  readonly id: number;
  readonly uuid: string;
  readonly state: DiscoveredState;
  readonly virtualDeviceUuid: string | null;
  /** The label of the ingest key that posted it last; null for rows posted before migration 0033. */
  readonly collectorName: string | null;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
}

/** Whether an admin has acted on a discovered device. */
export type DiscoveredState = 'NEW' | 'ADOPTED' | 'IGNORED';

/** SQL of discovered devices. Every lookup takes the company, so another company's device is never found. */
export function createDiscoveredDeviceRepository({ db }: SqlContext) {
  const devices = () =>
    db
      .selectFrom('discovered_devices as d')
      .leftJoin('virtual_devices as v', 'v.id', 'd.virtual_device_id')
      .select([
        'd.id',
        'd.uuid',
        'd.address',
        'd.snmp_version as snmpVersion',
        'd.sys_name as sysName',
        'd.sys_descr as sysDescr',
        'd.sys_object_id as sysObjectID',
        'd.vendor',
        'd.model',
        'd.serial_number as serialNumber',
        'd.state',
        'v.uuid as virtualDeviceUuid',
        'd.collector_name as collectorName',
        'd.first_seen_at as firstSeenAt',
        'd.last_seen_at as lastSeenAt',
      ]);
  const toRow = (row: Omit<DiscoveredDeviceRow, 'id' | 'state' | 'firstSeenAt' | 'lastSeenAt'> & { id: number | string; state: string; firstSeenAt: unknown; lastSeenAt: unknown }): DiscoveredDeviceRow => ({
    ...row,
    id: Number(row.id),
    state: row.state as DiscoveredState,
    firstSeenAt: timeText(row.firstSeenAt),
    lastSeenAt: timeText(row.lastSeenAt),
  });

  return {
    /** The company's discovered device with this UUID; undefined for another company's. */
    async find(companyId: number, uuid: string): Promise<DiscoveredDeviceRow | undefined> {
      const row = await devices().where('d.company_id', '=', companyId).where('d.uuid', '=', uuid).executeTakeFirst();
      return row && toRow(row);
    },

    /**
     * Records an agent found at `address`: a new row (state NEW) the first
     * time, else what it says of itself now, when and which collector (its
     * ingest key's label) found it, its state kept. One statement, so two
     * collectors finding it at once make one row.
     */
    async upsert(companyId: number, uuid: string, found: FoundAgentValues, collectorName: string, at: string): Promise<void> {
      const values = {
        snmp_version: found.snmpVersion,
        sys_name: found.sysName,
        sys_descr: found.sysDescr,
        sys_object_id: found.sysObjectID,
        vendor: found.vendor,
        model: found.model,
        serial_number: found.serialNumber,
        last_seen_at: at,
        collector_name: collectorName,
      };
      await db
        .insertInto('discovered_devices')
        .values({ uuid, company_id: companyId, address: found.address, state: 'NEW', first_seen_at: at, ...values })
        .onConflict((oc) => oc.columns(['company_id', 'address']).doUpdateSet(values))
        .execute();
    },

    /** Sets a device's state, and the virtual device it was adopted as. */
    async setState(id: number, state: DiscoveredState, virtualDeviceId: number | null): Promise<void> {
      await db.updateTable('discovered_devices').set({ state, virtual_device_id: virtualDeviceId }).where('id', '=', id).execute();
    },
  };
}

export type DiscoveredDeviceRepository = ReturnType<typeof createDiscoveredDeviceRepository>;

function timeText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}
