import type { SqlContext } from '../../db/store.js';
import type { Caller } from '../../kernel/caller.js';
import { notFound, requireUuid } from '../../platform/write/write.rules.js';
import { createNetworkRepository } from './network.repository.js';
import type { NetworkRow } from './network.repository.js';

/** A network as other features see it when they write under it. */
export type CallersNetwork = NetworkRow;

/**
 * The caller's network named by the input field `field`, for a write that
 * happens under it: UNAUTHORIZED for another company's network, exactly as
 * for a missing one. The one way other features look a network up.
 */
export async function getCallersNetwork(tx: SqlContext, caller: Caller, uuid: unknown, field = 'networkUUID'): Promise<CallersNetwork> {
  const network = await createNetworkRepository(tx).findByUuid(caller.companyId, requireUuid(uuid, field));
  if (!network) throw notFound(field);
  return network;
}

/** As getCallersNetwork, but null or absent means no network (undefined). */
export async function findCallersNetwork(tx: SqlContext, caller: Caller, uuid: unknown, field = 'networkUUID'): Promise<CallersNetwork | undefined> {
  if (uuid === null || uuid === undefined) return undefined;
  return getCallersNetwork(tx, caller, uuid, field);
}
