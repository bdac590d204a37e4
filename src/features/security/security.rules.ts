import type { SqlContext } from '../../db/store.js';
import type { Caller } from '../../kernel/caller.js';
import { createNetworkRepository } from '../network/network.repository.js';
import type { NetworkRow } from '../network/network.repository.js';
import { notFound, requireUuid } from '../../platform/write/write.rules.js';

/** The caller's network named by the input field `field`; UNAUTHORIZED for another company's, as for a missing one. */
export async function getCallersNetwork(tx: SqlContext, caller: Caller, uuid: unknown, field = 'networkUUID'): Promise<NetworkRow> {
  const network = await createNetworkRepository(tx).findByUuid(caller.companyId, requireUuid(uuid, field));
  if (!network) throw notFound(field);
  return network;
}
