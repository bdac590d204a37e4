import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import type { SqlContext, Store } from '../../db/store.js';
import { TEXT_MAX } from '../../kernel/rules.js';
import { identifyAgent } from '../../kernel/snmp-vendors.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { DEVICE_TYPES } from '../../platform/import/import.schema.js';
import { notFound, requireOneOf, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { checkSettings, insertTarget } from '../collector-target/collector-target.service.js';
import type { TargetInfo } from '../collector-target/collector-target.service.js';
import { registerAssignedHardware } from '../device/hardware-device.service.js';
import { insertVirtualDevice } from '../device/virtual-device.service.js';
import { getCallersNetwork } from '../network/network.access.js';
import type { SecretBox } from '../webhook/webhook.cipher.js';
import { createDiscoveredDeviceRepository } from './discovered-device.repository.js';
import type { DiscoveredDeviceRow, DiscoveredState } from './discovered-device.repository.js';
import type { FoundAgent } from '../../ingest/discovered.protocol.js';

/** A discovered device as the audit log shows it. */
export interface DiscoveredDeviceSnapshot {
  readonly UUID: string;
  readonly address: string;
  readonly sysName: string | null;
  readonly vendor: string | null;
  readonly model: string | null;
  readonly serialNumber: string | null;
  readonly state: DiscoveredState;
  readonly virtualDeviceUUID: string | null;
}

/** What adopting a discovered device takes: where it goes, and the target's settings (credentials are required: netgraph never stores what a collector swept with). */
export interface AdoptInput {
  readonly discoveredDeviceUUID: string;
  readonly networkUUID: string;
  /** Default: its sysName, else its address. */
  readonly label?: string | null;
  /** Default SWITCH. */
  readonly deviceType?: string | null;
  readonly snmp: Record<string, unknown>;
  readonly port?: number | null;
  readonly intervalSeconds?: number | null;
}

/** What an adoption made: the virtual device (with the discovered hardware assigned) and its collector target. */
export interface Adopted {
  readonly discoveredDevice: DiscoveredDeviceSnapshot;
  readonly virtualDevice: { UUID: string; networkUUID: string; label: string; deviceType: string; deviceModel: string; hardwareSerialNumber: string };
  readonly hardwareDevice: { serialNumber: string; deviceType: string; deviceModel: string; virtualDeviceUUID: string; spareNetworkUUID: null };
  readonly target: TargetInfo;
}

/**
 * Discovered devices (docs/collector.md#discovery): the SNMP agents a
 * company's collectors found by sweeping address ranges. A collector's
 * ingest key records them (`record`, not audited, like reports); an admin
 * adopts one (`discovered_device.adopt`: the hardware, a virtual device
 * with it assigned and a collector target, in one transaction, so the next
 * poll feeds it) or ignores it (`discovered_device.ignore`). Another
 * company's device answers like a missing one.
 */
export function createDiscoveredDeviceService(deps: { store: Store; writes: WriteService; box: () => Promise<SecretBox>; now: () => Date }) {
  const { store, writes, now } = deps;

  async function getRow(tx: SqlContext, caller: Caller, uuid: unknown): Promise<DiscoveredDeviceRow> {
    const row = await createDiscoveredDeviceRepository(tx).find(caller.companyId, requireUuid(uuid, 'discoveredDeviceUUID'));
    if (row === undefined) throw notFound('discoveredDeviceUUID');
    return row;
  }

  return {
    /** Records what a collector of the caller's company (an ingest key) found; FORBIDDEN for any other scope. Returns how many were new. */
    async record(caller: Caller, agents: readonly FoundAgent[]): Promise<{ stored: number; new: number }> {
      if (caller.scope !== 'ingest') throw new AppError('FORBIDDEN', 'Discovered devices come from collectors: use a key created with --scope ingest.');
      const at = now().toISOString();
      return store.transaction(async (tx) => {
        const repository = createDiscoveredDeviceRepository(tx);
        const uuids = agents.map(() => randomUUID());
        for (const [i, agent] of agents.entries()) {
          await repository.upsert(caller.companyId, uuids[i] as string, { ...agent, ...identifyAgent(agent.sysObjectID) }, caller.label, at);
        }
        let created = 0;
        for (const uuid of uuids) if ((await repository.find(caller.companyId, uuid)) !== undefined) created += 1;
        return { stored: agents.length, new: created };
      });
    },

    /** Adopts a NEW or IGNORED device into a network: hardware, virtual device and collector target in one audited transaction. */
    async adopt(caller: Caller, input: AdoptInput): Promise<Adopted> {
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const row = await getRow(tx, caller, input.discoveredDeviceUUID);
        if (row.state === 'ADOPTED') throw new AppError('CONFLICT', `${row.address} is adopted already, as virtual device ${row.virtualDeviceUuid ?? '(deleted)'}.`, { field: 'discoveredDeviceUUID' });
        if (row.serialNumber === null) {
          throw new AppError('BAD_USER_INPUT', `${row.address} reported no serial number (no ENTITY-MIB chassis serial, no MAC address): add it with a collector target and hardware of your own instead.`, { field: 'discoveredDeviceUUID' });
        }
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const label = requireText(input.label ?? row.sysName ?? row.address, 'label', TEXT_MAX.deviceLabel);
        const deviceType = requireOneOf(input.deviceType ?? 'SWITCH', 'deviceType', DEVICE_TYPES);
        const deviceModel = (row.model ?? row.vendor ?? 'unknown').slice(0, TEXT_MAX.deviceModel);
        const settings = checkSettings({ host: row.address, snmp: input.snmp, ...(input.port == null ? {} : { port: input.port }), ...(input.intervalSeconds == null ? {} : { intervalSeconds: input.intervalSeconds }) });
        const serialNumber = row.serialNumber;
        const conflict = () => new AppError('CONFLICT', `Hardware with serial number ${serialNumber} is registered already: assign it to a device instead.`, { field: 'discoveredDeviceUUID' });
        // in one transaction: a conflict on the hardware rolls the device back
        const device = await insertVirtualDevice(tx, caller.companyId, network.id, { label, deviceType, deviceModel });
        const deviceUuid = device.uuid;
        await registerAssignedHardware(tx, writes, caller.companyId, { serialNumber, deviceType, deviceModel }, device.id, conflict);
        const target = await insertTarget(tx, caller.companyId, device.id, settings, box, now().toISOString());
        await createDiscoveredDeviceRepository(tx).setState(row.id, 'ADOPTED', device.id);
        const before = snapshotOf(row);
        const after: Adopted = {
          discoveredDevice: { ...before, state: 'ADOPTED', virtualDeviceUUID: deviceUuid },
          virtualDevice: { UUID: deviceUuid, networkUUID: network.uuid, label, deviceType, deviceModel, hardwareSerialNumber: serialNumber },
          hardwareDevice: { serialNumber, deviceType, deviceModel, virtualDeviceUUID: deviceUuid, spareNetworkUUID: null },
          target,
        };
        return { result: after, change: buildChange('discovered_device.adopt', row.uuid, before, after) };
      });
    },

    /** Ignores a NEW device (the dashboard lists it no more as new); ignoring an ignored one changes nothing; an adopted one is a CONFLICT. */
    async ignore(caller: Caller, input: { discoveredDeviceUUID: string }): Promise<DiscoveredDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const row = await getRow(tx, caller, input.discoveredDeviceUUID);
        const before = snapshotOf(row);
        if (row.state === 'IGNORED') return { result: before, change: null };
        if (row.state === 'ADOPTED') throw new AppError('CONFLICT', `${row.address} is adopted: delete its virtual device to remove it.`, { field: 'discoveredDeviceUUID' });
        await createDiscoveredDeviceRepository(tx).setState(row.id, 'IGNORED', null);
        const after = { ...before, state: 'IGNORED' as const };
        return { result: after, change: buildChange('discovered_device.ignore', row.uuid, before, after) };
      });
    },
  };
}

export type DiscoveredDeviceService = ReturnType<typeof createDiscoveredDeviceService>;

function snapshotOf(row: DiscoveredDeviceRow): DiscoveredDeviceSnapshot {
  return {
    UUID: row.uuid,
    address: row.address,
    sysName: row.sysName,
    vendor: row.vendor,
    model: row.model,
    serialNumber: row.serialNumber,
    state: row.state,
    virtualDeviceUUID: row.virtualDeviceUuid,
  };
}
