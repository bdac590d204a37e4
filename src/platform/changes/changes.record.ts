import type { SqlContext } from '../../db/store.js';
import { invariant } from '../../kernel/errors.js';
import { createChangesRepository } from './changes.repository.js';
import type { ChangeKind, NewChangeRow } from './changes.repository.js';

/**
 * The change feed's side of a write (docs/changes.md). The audit log calls
 * `recordFeedChanges` for every entry it writes, in the same transaction, so
 * every write path (GraphQL, dashboard, CLI, import) feeds the feed exactly
 * as it feeds the audit log. Each audit action says what it does to the feed
 * below: a Meter type and kind, a cascade, or nothing (not synced). An
 * action missing here fails its write (tag `changes-unmapped-action`), so a
 * new write cannot forget the feed.
 */

/** What the audit log records of one write: the fields of AuditChange this needs. */
export interface AuditedChange {
  readonly action: string;
  readonly objectId: string;
  readonly before: unknown;
  readonly after: unknown;
}

type Plain = Record<string, unknown>;
type Rule = { readonly type: string; readonly kind: ChangeKind | 'SET' } | 'network.create' | 'network.delete' | 'virtual_device.delete' | 'company.import' | 'discovered_device.adopt' | 'none';

const RULES: Readonly<Record<string, Rule>> = {
  'company.create': { type: 'Company', kind: 'CREATED' },
  'company.update': { type: 'Company', kind: 'UPDATED' },
  'company.import': 'company.import',
  'network.create': 'network.create',
  'network.update': { type: 'Network', kind: 'UPDATED' },
  'network.delete': 'network.delete',
  'virtual_device.create': { type: 'VirtualDevice', kind: 'CREATED' },
  'virtual_device.update': { type: 'VirtualDevice', kind: 'UPDATED' },
  'virtual_device.delete': 'virtual_device.delete',
  'hardware_device.register': { type: 'HardwareDevice', kind: 'CREATED' },
  'hardware_device.update': { type: 'HardwareDevice', kind: 'UPDATED' },
  'hardware_device.delete': { type: 'HardwareDevice', kind: 'DELETED' },
  'hardware_device.assign': { type: 'HardwareDevice', kind: 'UPDATED' },
  'hardware_device.unassign': { type: 'HardwareDevice', kind: 'UPDATED' },
  'hardware_device.place': { type: 'HardwareDevice', kind: 'UPDATED' },
  'vlan.create': { type: 'VLAN', kind: 'CREATED' },
  'vlan.update': { type: 'VLAN', kind: 'UPDATED' },
  'vlan.delete': { type: 'VLAN', kind: 'DELETED' },
  'ssid.create': { type: 'SSID', kind: 'CREATED' },
  'ssid.update': { type: 'SSID', kind: 'UPDATED' },
  'ssid.delete': { type: 'SSID', kind: 'DELETED' },
  'firewall_rule.create': { type: 'FirewallRule', kind: 'CREATED' },
  'firewall_rule.update': { type: 'FirewallRule', kind: 'UPDATED' },
  'firewall_rule.delete': { type: 'FirewallRule', kind: 'DELETED' },
  'blocked_client.block': { type: 'NetworkClientBlocklistEntry', kind: 'CREATED' },
  'blocked_client.unblock': { type: 'NetworkClientBlocklistEntry', kind: 'DELETED' },
  'inter_vlan_pair.permit': { type: 'InterVLANCommunicationPermittedPair', kind: 'CREATED' },
  'inter_vlan_pair.forbid': { type: 'InterVLANCommunicationPermittedPair', kind: 'DELETED' },
  'ids_ips_config.set': { type: 'IDSIPSConfig', kind: 'SET' },
  'ids_ips_config.delete': { type: 'IDSIPSConfig', kind: 'DELETED' },
  'alert_receiver.create': { type: 'AlertReceiver', kind: 'CREATED' },
  'alert_receiver.update': { type: 'AlertReceiver', kind: 'UPDATED' },
  'alert_receiver.delete': { type: 'AlertReceiver', kind: 'DELETED' },
  'webhook.create': { type: 'WebhookEndpoint', kind: 'CREATED' },
  'webhook.update': { type: 'WebhookEndpoint', kind: 'UPDATED' },
  'webhook.delete': { type: 'WebhookEndpoint', kind: 'DELETED' },
  // not what an integration syncs: secrets, test sends, replays, keys, users
  'webhook.rotate_secret': 'none',
  'webhook.test': 'none',
  'webhook.replay': 'none',
  'api_key.create': 'none',
  'api_key.revoke': 'none',
  'api_key.rotate': 'none',
  'api_key.allow': 'none',
  'user.create': 'none',
  'user.password_change': 'none',
  // netgraph's own collector configuration, not a Meter type
  'collector_target.create': 'none',
  'collector_target.update': 'none',
  'collector_target.delete': 'none',
  'collector_range.create': 'none',
  'collector_range.update': 'none',
  'collector_range.delete': 'none',
  // adopting makes a virtual device and its hardware (the feed's); the discovered device itself is netgraph's own
  'discovered_device.adopt': 'discovered_device.adopt',
  'discovered_device.ignore': 'none',
};

/**
 * Writes the feed's changes of one audited change, in its transaction `tx`,
 * stamped `changedAt` and with the audit entry's UUID `entryUuid` as their
 * source (a webhook delivery of the entry carries their cursor).
 */
export async function recordFeedChanges(tx: SqlContext, companyId: number, change: AuditedChange, changedAt: string, entryUuid: string): Promise<void> {
  const rule = RULES[change.action];
  invariant(rule !== undefined, 'changes-unmapped-action');
  const rows = await rowsOf(tx, rule, change, companyId);
  await createChangesRepository(tx).insert(rows.map((row) => ({ ...row, companyId, changedAt, sourceUuid: entryUuid })));
}

type Row = Omit<NewChangeRow, 'companyId' | 'changedAt' | 'sourceUuid'>;

async function rowsOf(tx: SqlContext, rule: Rule, change: AuditedChange, companyId: number): Promise<Row[]> {
  if (rule === 'none') return [];
  if (rule === 'company.import') return companyImported(tx, change, companyId);
  if (rule === 'network.create') {
    const { vlans, ssids, ...network } = change.after as Plain & { vlans: Plain[]; ssids: Plain[] };
    return [
      { objectType: 'Network', objectId: change.objectId, kind: 'CREATED', fields: network },
      ...vlans.map((v): Row => ({ objectType: 'VLAN', objectId: v.UUID as string, kind: 'CREATED', fields: v })),
      ...ssids.map((s): Row => ({ objectType: 'SSID', objectId: s.UUID as string, kind: 'CREATED', fields: s })),
    ];
  }
  if (rule === 'network.delete') return networkDeleted(tx, change);
  if (rule === 'discovered_device.adopt') {
    const { virtualDevice, hardwareDevice } = change.after as { virtualDevice: Plain; hardwareDevice: Plain };
    return [
      { objectType: 'VirtualDevice', objectId: virtualDevice.UUID as string, kind: 'CREATED', fields: fieldsOf('VirtualDevice', virtualDevice) },
      { objectType: 'HardwareDevice', objectId: hardwareDevice.serialNumber as string, kind: 'CREATED', fields: hardwareDevice },
    ];
  }
  if (rule === 'virtual_device.delete') {
    const serial = (change.before as Plain).hardwareSerialNumber as string | null;
    return [
      { objectType: 'VirtualDevice', objectId: change.objectId, kind: 'DELETED', fields: null },
      ...(await hardwareNow(tx, serial === null ? [] : [serial])),
    ];
  }
  const kind = rule.kind === 'SET' ? (change.before === null ? 'CREATED' : 'UPDATED') : rule.kind;
  return [{ objectType: rule.type, objectId: change.objectId, kind, fields: kind === 'DELETED' ? null : fieldsOf(rule.type, change.after) }];
}

/**
 * The feed's fields of an object from its audit snapshot. A hardware
 * device's assignment is its own fields' (virtualDeviceUUID): the virtual
 * device's snapshot also names its hardware, which its later changes would
 * not follow, so the feed leaves that out.
 */
function fieldsOf(objectType: string, after: unknown): unknown {
  if (objectType !== 'VirtualDevice') return after;
  const { hardwareSerialNumber: _assignment, ...fields } = after as Plain;
  return fields;
}

/** A network's delete: it, its VLANs, SSIDs and virtual devices DELETED; its hardware UPDATED (spare, placed nowhere). */
async function networkDeleted(tx: SqlContext, change: AuditedChange): Promise<Row[]> {
  const before = change.before as { vlans: Plain[]; ssids: Plain[]; virtualDevices: Plain[]; hardwareReturnedToSpare: string[] };
  const gone = (objectType: string) => (o: Plain): Row => ({ objectType, objectId: o.UUID as string, kind: 'DELETED', fields: null });
  return [
    ...before.virtualDevices.map(gone('VirtualDevice')),
    ...before.ssids.map(gone('SSID')),
    ...before.vlans.map(gone('VLAN')),
    { objectType: 'Network', objectId: change.objectId, kind: 'DELETED', fields: null },
    ...(await hardwareNow(tx, before.hardwareReturnedToSpare)),
  ];
}

/** Hardware a cascade changed, UPDATED with its fields as they are now in the transaction. */
async function hardwareNow(tx: SqlContext, serialNumbers: readonly string[]): Promise<Row[]> {
  const rows = await createChangesRepository(tx).hardwareFields(serialNumbers);
  return rows.map((fields) => ({ objectType: 'HardwareDevice', objectId: fields.serialNumber, kind: 'UPDATED', fields }));
}

/**
 * An imported company: the company CREATED, and everything it brought that
 * the feed lists (networks, VLANs, SSIDs, virtual and hardware devices).
 */
async function companyImported(tx: SqlContext, change: AuditedChange, companyId: number): Promise<Row[]> {
  const { slug, name } = change.after as Plain;
  return [{ objectType: 'Company', objectId: change.objectId, kind: 'CREATED', fields: { slug, name } }, ...(await createChangesRepository(tx).importedObjects(companyId))];
}

/** An event row of ingest, as far as the feed reads it. */
export interface TransitionEvent {
  /** The event's UUID: the changes' source, so its webhook delivery carries their cursor. */
  readonly uuid: string;
  readonly company_id: number;
  readonly hardware_device_id?: number | null;
  readonly type: string;
  readonly observed_at: string;
}

/**
 * The online/offline changes of the DEVICE_ONLINE and DEVICE_OFFLINE events
 * ingest records, in its transaction `tx`: a HardwareDevice change of kind
 * ONLINE or OFFLINE at the event's time, whose fields are the serial number
 * and isConnectedToBackend. Other events are no change.
 */
export async function recordDeviceTransitions(tx: SqlContext, events: readonly TransitionEvent[]): Promise<void> {
  const transitions = events.filter((e) => (e.type === 'DEVICE_ONLINE' || e.type === 'DEVICE_OFFLINE') && typeof e.hardware_device_id === 'number');
  if (transitions.length === 0) return;
  const repository = createChangesRepository(tx);
  const serials = await repository.serialNumbers(transitions.map((e) => e.hardware_device_id as number));
  await repository.insert(
    transitions.flatMap((e): NewChangeRow[] => {
      const serialNumber = serials.get(e.hardware_device_id as number);
      if (serialNumber === undefined) return [];
      const online = e.type === 'DEVICE_ONLINE';
      return [
        {
          companyId: e.company_id,
          objectType: 'HardwareDevice',
          objectId: serialNumber,
          kind: online ? 'ONLINE' : 'OFFLINE',
          changedAt: e.observed_at,
          fields: { serialNumber, isConnectedToBackend: online },
          sourceUuid: e.uuid,
        },
      ];
    }),
  );
}
