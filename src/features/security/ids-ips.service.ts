import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { requireOneOf } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createIdsIpsRepository } from './ids-ips.repository.js';
import { getCallersNetwork } from '../network/network.access.js';

/** The IDS/IPS modes: detection only, or detection and prevention. */
export const IDS_IPS_MODES = ['IDS', 'IPS'] as const;

/** A network's IDS/IPS configuration as the API and the audit log show it. */
export interface IdsIpsConfigSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly mode: string;
}

/**
 * A network's IDS/IPS mode: set (creating the configuration, or changing its
 * mode, which keeps its UUID) and delete (back to not configured). Setting
 * the mode it has, or deleting what is not there, changes and records nothing.
 */
export function createIdsIpsService(writes: WriteService) {
  return {
    /** Sets the network's mode. */
    async set(caller: Caller, input: { networkUUID: string; mode: string }): Promise<IdsIpsConfigSnapshot> {
      return writes.run(caller, async (tx) => {
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const mode = requireOneOf(input.mode, 'mode', IDS_IPS_MODES);
        const configs = createIdsIpsRepository(tx);
        const row = await configs.findByNetwork(network.id);
        if (row === undefined) {
          const created = { UUID: randomUUID(), networkUUID: network.uuid, mode };
          const conflict = () => new AppError('CONFLICT', 'A concurrent write configured IDS/IPS on this network: read it again.', { field: 'networkUUID' });
          await writes.unique(configs.insert(network.id, created.UUID, mode), conflict);
          return { result: created, change: buildChange('ids_ips_config.set', created.UUID, null, created) };
        }
        const before = { UUID: row.uuid, networkUUID: network.uuid, mode: row.mode };
        if (row.mode === mode) return { result: before, change: null };
        await configs.updateMode(row.id, mode);
        const after = { ...before, mode };
        return { result: after, change: buildChange('ids_ips_config.set', row.uuid, before, after) };
      });
    },

    /** Removes the network's configuration; answers it, or null when there was none. */
    async delete(caller: Caller, input: { networkUUID: string }): Promise<IdsIpsConfigSnapshot | null> {
      return writes.run(caller, async (tx) => {
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const configs = createIdsIpsRepository(tx);
        const row = await configs.findByNetwork(network.id);
        if (row === undefined) return { result: null, change: null };
        await configs.delete(row.id);
        const before = { UUID: row.uuid, networkUUID: network.uuid, mode: row.mode };
        return { result: before, change: buildChange('ids_ips_config.delete', row.uuid, before, null) };
      });
    },
  };
}

export type IdsIpsService = ReturnType<typeof createIdsIpsService>;
