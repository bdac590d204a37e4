import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { isMacAddress } from '../../kernel/formats.js';
import { notFound, optionalText } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createBlockedClientRepository } from './blocked-client.repository.js';
import { getCallersNetwork } from '../network/network.access.js';

/** A blocklist entry as the API and the audit log show it. */
export interface BlockedClientSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly macAddress: string;
  readonly reason: string | null;
  readonly createdAt: string;
}

function requireMac(value: unknown): string {
  if (typeof value === 'string' && isMacAddress(value)) return value;
  throw new AppError('BAD_USER_INPUT', 'macAddress must be a MAC address, lowercase and colon-separated, e.g. 0c:8d:db:12:34:56.', { field: 'macAddress' });
}

/**
 * A network's blocklist of client MAC addresses: block and unblock, each one
 * audited transaction. A MAC address is blocked at most once per network.
 */
export function createBlockedClientService(writes: WriteService) {
  return {
    /** Blocks a MAC address on a network; CONFLICT when it is blocked there already. */
    async block(caller: Caller, input: { networkUUID: string; macAddress: string; reason?: string | null }): Promise<BlockedClientSnapshot> {
      return writes.run(caller, async (tx) => {
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const macAddress = requireMac(input.macAddress);
        const reason = optionalText(input.reason, 'reason', TEXT_MAX.description);
        const entries = createBlockedClientRepository(tx);
        const conflict = () => new AppError('CONFLICT', `${macAddress} is blocked on this network already.`, { field: 'macAddress' });
        if (await entries.find(network.id, macAddress)) throw conflict();
        const created = { UUID: randomUUID(), networkUUID: network.uuid, macAddress, reason, createdAt: writes.now().toISOString() };
        await writes.unique(entries.insert(network.id, { uuid: created.UUID, macAddress, reason, createdAt: created.createdAt }), conflict);
        return { result: created, change: buildChange('blocked_client.block', created.UUID, null, created) };
      });
    },

    /** Unblocks a MAC address; UNAUTHORIZED naming macAddress when it is not blocked on the network. */
    async unblock(caller: Caller, input: { networkUUID: string; macAddress: string }): Promise<BlockedClientSnapshot> {
      return writes.run(caller, async (tx) => {
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const entries = createBlockedClientRepository(tx);
        const row = await entries.find(network.id, requireMac(input.macAddress));
        if (!row) throw notFound('macAddress');
        await entries.delete(row.id);
        const before = { UUID: row.uuid, networkUUID: network.uuid, macAddress: row.macAddress, reason: row.reason, createdAt: row.createdAt };
        return { result: before, change: buildChange('blocked_client.unblock', row.uuid, before, null) };
      });
    },
  };
}

export type BlockedClientService = ReturnType<typeof createBlockedClientService>;
