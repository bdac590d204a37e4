import type { SqlContext } from '../../db/store.js';

/** One change of the feed as written; `txid` comes from the column's default (docs/changes.md). */
export interface NewChangeRow {
  readonly companyId: number;
  /** Meter's type name, e.g. `Network`, `VLAN`, `HardwareDevice`. */
  readonly objectType: string;
  /** The object's UUID, or a hardware device's serial number. */
  readonly objectId: string;
  readonly kind: ChangeKind;
  readonly changedAt: string;
  /** The object's fields after the change; null for DELETED. */
  readonly fields: unknown;
  /** The UUID of the audit entry or event that wrote it: a webhook delivery of that entry or event carries its cursor. */
  readonly sourceUuid: string;
}

/** What happened to the object: the kinds of docs/changes.md. */
export type ChangeKind = 'CREATED' | 'UPDATED' | 'DELETED' | 'ONLINE' | 'OFFLINE';

/** A hardware device's fields as the change feed shows them (the audit log's snapshot of it). */
export interface HardwareFields {
  readonly serialNumber: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  readonly virtualDeviceUUID: string | null;
  readonly spareNetworkUUID: string | null;
}

/** Rows per INSERT of the feed: 7 parameters each, far below both stores' limits. */
const INSERT_ROWS = 1000;

/** SQL of the change feed's writes: the rows, the hardware a cascade touched, retention. */
export function createChangesRepository({ db }: SqlContext) {
  const insertRows = async (rows: readonly NewChangeRow[]) => {
    await db
      .insertInto('changes')
      .values(
        rows.map((row) => ({
          company_id: row.companyId,
          object_type: row.objectType,
          object_id: row.objectId,
          kind: row.kind,
          changed_at: row.changedAt,
          fields: row.fields === null ? null : JSON.stringify(row.fields),
          source_uuid: row.sourceUuid,
        })),
      )
      .execute();
  };
  return {
    /** Writes the changes, in order, in the caller's transaction. */
    async insert(rows: readonly NewChangeRow[]): Promise<void> {
      // in order, INSERT_ROWS at a time: a statement takes at most 65,535 parameters on PostgreSQL (32,766 on SQLite),
      // and an import of a large company creates tens of thousands of objects
      for (let i = 0; i < rows.length; i += INSERT_ROWS) await insertRows(rows.slice(i, i + INSERT_ROWS));
    },

    /** The hardware devices of these serial numbers (unique across the service) as they are now in the transaction, by serial number. */
    async hardwareFields(serialNumbers: readonly string[]): Promise<HardwareFields[]> {
      if (serialNumbers.length === 0) return [];
      return selectHardware((q) => q.where('h.serial_number', 'in', serialNumbers).orderBy('h.serial_number'));
    },

    /**
     * Everything of the company an import creates, as CREATED changes with
     * the fields the writes' audit snapshots have: networks, then their
     * VLANs, SSIDs and virtual devices, then the hardware.
     */
    async importedObjects(companyId: number): Promise<Omit<NewChangeRow, 'companyId' | 'changedAt' | 'sourceUuid'>[]> {
      const networks = await db.selectFrom('networks').selectAll().where('company_id', '=', companyId).orderBy('id').execute();
      const networkUuid = new Map(networks.map((n) => [Number(n.id), n.uuid]));
      const ids = [...networkUuid.keys()];
      const ofNetworks = ids;
      const vlans = ofNetworks.length === 0 ? [] : await db.selectFrom('vlans').selectAll().where('network_id', 'in', ofNetworks).orderBy('id').execute();
      const ssids = ofNetworks.length === 0 ? [] : await db.selectFrom('ssids').selectAll().where('network_id', 'in', ofNetworks).orderBy('id').execute();
      const devices = await db.selectFrom('virtual_devices').selectAll().where('company_id', '=', companyId).orderBy('id').execute();
      const hardware = await selectHardware((q) => q.where('h.company_id', '=', companyId).orderBy('h.id'));
      const created = (objectType: string, objectId: string, fields: Record<string, unknown>) => ({ objectType, objectId, kind: 'CREATED' as const, fields });
      const address = (n: (typeof networks)[number]) => {
        const parts = { line1: n.mailing_line1, line2: n.mailing_line2, city: n.mailing_city, subdivisionCode: n.mailing_subdivision_code, postalCode: n.mailing_postal_code };
        return Object.values(parts).every((part) => part === null) ? null : parts;
      };
      return [
        ...networks.map((n) => created('Network', n.uuid, { UUID: n.uuid, label: n.label, slug: n.slug, isActive: Boolean(n.is_active), mailingAddress: address(n) })),
        ...vlans.map((v) =>
          created('VLAN', v.uuid, {
            UUID: v.uuid,
            networkUUID: networkUuid.get(Number(v.network_id)),
            name: v.name,
            vlanID: v.vlan_id,
            isEnabled: Boolean(v.is_enabled),
            isDefault: Boolean(v.is_default),
            description: v.description,
            ipV4ClientGateway: v.ipv4_client_gateway,
            ipV4ClientPrefixLength: v.ipv4_client_prefix_length,
            ipV4ClientAssignmentProtocol: v.ipv4_client_assignment_protocol,
          }),
        ),
        ...ssids.map((s) =>
          created('SSID', s.uuid, {
            UUID: s.uuid,
            networkUUID: networkUuid.get(Number(s.network_id)),
            ssid: s.ssid,
            isEnabled: Boolean(s.is_enabled),
            isGuest: Boolean(s.is_guest),
            isHidden: Boolean(s.is_hidden),
            encryptionProtocol: s.encryption_protocol,
            vlanID: s.vlan_id,
          }),
        ),
        ...devices.map((d) =>
          created('VirtualDevice', d.uuid, {
            UUID: d.uuid,
            networkUUID: networkUuid.get(Number(d.network_id)),
            label: d.label,
            deviceType: d.device_type,
            deviceModel: d.device_model,
          }),
        ),
        ...hardware.map((h) => created('HardwareDevice', h.serialNumber, { ...h })),
      ];
    },

    /** The serial numbers of hardware devices by id, for the online/offline changes of ingest. */
    async serialNumbers(ids: readonly number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('hardware_devices').select(['id', 'serial_number']).where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [Number(r.id), r.serial_number]));
    },
  };

  /** Hardware devices with their fields, of the rows `narrow` selects and in its order. */
  async function selectHardware(narrow: (query: HardwareQuery) => HardwareQuery): Promise<HardwareFields[]> {
    const rows = await narrow(hardwareQuery()).execute();
    return rows.map((r) => ({
      serialNumber: r.serial_number,
      deviceType: r.device_type,
      deviceModel: r.device_model,
      virtualDeviceUUID: r.virtual_uuid,
      spareNetworkUUID: r.spare_uuid,
    }));
  }

  function hardwareQuery() {
    return db
      .selectFrom('hardware_devices as h')
      .leftJoin('virtual_devices as v', 'v.id', 'h.virtual_device_id')
      .leftJoin('networks as s', 's.id', 'h.spare_network_id')
      .select(['h.serial_number', 'h.device_type', 'h.device_model', 'v.uuid as virtual_uuid', 's.uuid as spare_uuid']);
  }
  type HardwareQuery = ReturnType<typeof hardwareQuery>;
}
