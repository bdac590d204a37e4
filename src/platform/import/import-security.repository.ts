import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ImportNetwork } from './import.schema.js';

/** Rows per INSERT, as import.repository.ts: well under both stores' parameter limits. */
const BATCH = 1000;

async function inBatches<R>(rows: readonly R[], insert: (batch: R[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
}

/**
 * Inserts the security configuration of imported networks (docs/security.md):
 * blocked clients, firewall rules, inter-VLAN pairs and IDS/IPS configurations.
 * `networkIds` maps a network's UUID to its row id, `vlanIds` `networkId:vlanID` to a VLAN's row id.
 */
export async function insertNetworkSecurity(
  trx: Kysely<Database>,
  networks: readonly ImportNetwork[],
  networkIds: ReadonlyMap<string, number>,
  vlanIds: ReadonlyMap<string, number>,
  now: string,
): Promise<void> {
  const per = <T>(pick: (n: ImportNetwork) => readonly T[] | undefined) =>
    networks.flatMap((n) => (pick(n) ?? []).map((item) => ({ item, networkId: networkIds.get(n.UUID) as number })));
  await inBatches(per((n) => n.blockedClients), async (batch) => {
    await trx
      .insertInto('blocked_clients')
      .values(batch.map(({ item, networkId }) => ({ uuid: item.UUID ?? randomUUID(), network_id: networkId, mac_address: item.macAddress, reason: item.reason, created_at: item.createdAt ?? now })))
      .execute();
  });
  await inBatches(per((n) => n.firewallRules), async (batch) => {
    await trx
      .insertInto('firewall_rules')
      .values(
        batch.map(({ item, networkId }) => ({
          uuid: item.UUID ?? randomUUID(),
          network_id: networkId,
          name: item.name,
          description: item.description,
          action: item.action,
          is_enabled: item.isEnabled,
          src_prefix: item.srcPrefix,
          dst_prefix: item.dstPrefix,
          priority: item.priority,
        })),
      )
      .execute();
  });
  await inBatches(per((n) => n.interVLANPairs), async (batch) => {
    await trx
      .insertInto('inter_vlan_pairs')
      .values(
        batch.map(({ item, networkId }) => {
          const left = vlanIds.get(`${networkId}:${item.leftVLANID}`) as number;
          const right = vlanIds.get(`${networkId}:${item.rightVLANID}`) as number;
          return { uuid: item.UUID ?? randomUUID(), network_id: networkId, vlan_low_id: Math.min(left, right), vlan_high_id: Math.max(left, right) };
        }),
      )
      .execute();
  });
  await inBatches(per((n) => (n.idsIPSConfig ? [n.idsIPSConfig] : [])), async (batch) => {
    await trx
      .insertInto('ids_ips_configs')
      .values(batch.map(({ item, networkId }) => ({ uuid: item.UUID ?? randomUUID(), network_id: networkId, mode: item.mode })))
      .execute();
  });
}

/** A company's security configuration for export, each list in the API's order. */
export async function readCompanySecurity(db: Kysely<Database>, companyId: number) {
  const inCompany = db.selectFrom('networks').select('id').where('company_id', '=', companyId);
  const blockedClients = await db.selectFrom('blocked_clients').selectAll().where('network_id', 'in', inCompany).orderBy('mac_address').execute();
  const firewallRules = await db.selectFrom('firewall_rules').selectAll().where('network_id', 'in', inCompany).orderBy('priority').execute();
  const pairs = await db
    .selectFrom('inter_vlan_pairs as p')
    .innerJoin('vlans as lo', 'lo.id', 'p.vlan_low_id')
    .innerJoin('vlans as hi', 'hi.id', 'p.vlan_high_id')
    .select(['p.uuid', 'p.network_id', 'lo.vlan_id as lowVlanId', 'hi.vlan_id as highVlanId'])
    .where('p.network_id', 'in', inCompany)
    .execute();
  const idsIpsConfigs = await db.selectFrom('ids_ips_configs').selectAll().where('network_id', 'in', inCompany).execute();
  return { blockedClients, firewallRules, pairs, idsIpsConfigs };
}
