import { randomUUID } from 'node:crypto';
import type { SqlContext } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { findVlan } from '../vlan/vlan.service.js';
import type { VlanRow } from '../vlan/vlan.service.js';
import { notFound, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createInterVlanRepository } from './inter-vlan.repository.js';

/** Two VLANs named by the API: the order does not matter. */
export interface VlanPairInput {
  readonly leftVLANUUID: string;
  readonly rightVLANUUID: string;
}

/** A permitted pair as the API and the audit log show it: the VLAN with the smaller vlanID left. */
export interface InterVlanPairSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly leftVLANUUID: string;
  readonly rightVLANUUID: string;
}

/** The two VLANs of one network of the caller's, checked; each missing or foreign one is UNAUTHORIZED naming its field. */
async function getPair(tx: SqlContext, caller: Caller, input: VlanPairInput): Promise<[VlanRow, VlanRow]> {
  const left = await findVlan(tx, caller.companyId, requireUuid(input.leftVLANUUID, 'leftVLANUUID'));
  if (!left) throw notFound('leftVLANUUID');
  const right = await findVlan(tx, caller.companyId, requireUuid(input.rightVLANUUID, 'rightVLANUUID'));
  if (!right) throw notFound('rightVLANUUID');
  if (left.id === right.id) throw new AppError('BAD_USER_INPUT', 'rightVLANUUID must name another VLAN than leftVLANUUID.', { field: 'rightVLANUUID' });
  if (left.networkId !== right.networkId) {
    throw new AppError('BAD_USER_INPUT', 'rightVLANUUID must name a VLAN of the same network as leftVLANUUID.', { field: 'rightVLANUUID' });
  }
  return left.vlanId < right.vlanId ? [left, right] : [right, left];
}

const snapshotOf = (uuid: string, [left, right]: [VlanRow, VlanRow]): InterVlanPairSnapshot => ({
  UUID: uuid,
  networkUUID: left.networkUuid,
  leftVLANUUID: left.uuid,
  rightVLANUUID: right.uuid,
});

/**
 * The VLAN pairs of a network allowed to talk to each other: permit and
 * forbid, each one audited transaction. A pair is unordered; permitting a
 * permitted pair, or forbidding one that is not, changes and records nothing.
 * Deleting a VLAN removes its pairs (the foreign key).
 */
export function createInterVlanService(writes: WriteService) {
  return {
    /** Permits the two VLANs (of one network) to talk; answers the pair, new or existing. */
    async permit(caller: Caller, input: VlanPairInput): Promise<InterVlanPairSnapshot> {
      return writes.run(caller, async (tx) => {
        const pair = await getPair(tx, caller, input);
        const pairs = createInterVlanRepository(tx);
        const existing = await pairs.find(pair[0].id, pair[1].id);
        if (existing) return { result: snapshotOf(existing.uuid, pair), change: null };
        const uuid = randomUUID();
        const conflict = () => new AppError('CONFLICT', 'These VLANs were permitted to talk by a concurrent write: read the pairs again.', { field: '' });
        await writes.unique(pairs.insert(pair[0].networkId, uuid, pair[0].id, pair[1].id), conflict);
        const created = snapshotOf(uuid, pair);
        return { result: created, change: buildChange('inter_vlan_pair.permit', uuid, null, created) };
      });
    },

    /** Forbids the two VLANs to talk; answers the removed pair, or null when they were not permitted. */
    async forbid(caller: Caller, input: VlanPairInput): Promise<InterVlanPairSnapshot | null> {
      return writes.run(caller, async (tx) => {
        const pair = await getPair(tx, caller, input);
        const pairs = createInterVlanRepository(tx);
        const existing = await pairs.find(pair[0].id, pair[1].id);
        if (!existing) return { result: null, change: null };
        await pairs.delete(existing.id);
        const before = snapshotOf(existing.uuid, pair);
        return { result: before, change: buildChange('inter_vlan_pair.forbid', existing.uuid, before, null) };
      });
    },
  };
}

export type InterVlanService = ReturnType<typeof createInterVlanService>;
