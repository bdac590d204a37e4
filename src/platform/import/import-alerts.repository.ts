import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { channelValues } from '../../features/alert/alert.service.js';
import { createAlertRepository } from '../../features/alert/alert.repository.js';
import { createWebhookRepository } from '../../features/webhook/webhook.repository.js';
import type { ImportAlertReceiver } from './import.alerts.js';

/**
 * Inserts a company's imported alert receivers through the alert and
 * webhook repositories the API writes with: each EMAIL target gets its own
 * email channel row of the outbox, as createAlertReceiver makes it.
 */
export async function insertAlertReceivers(trx: Kysely<Database>, companyId: number, receivers: readonly ImportAlertReceiver[], networkIds: ReadonlyMap<string, number>, now: string): Promise<void> {
  const alerts = createAlertRepository({ db: trx });
  const webhooks = createWebhookRepository({ db: trx });
  for (const receiver of receivers) {
    const id = await alerts.insertReceiver(companyId, receiver.UUID ?? randomUUID(), receiver.label, now);
    for (const target of receiver.targets) {
      const uuid = randomUUID();
      const endpointId = await webhooks.insertEndpoint(companyId, uuid, channelValues({ type: 'EMAIL', address: target.emailAddress }), now, { kind: 'email', target: target.emailAddress });
      await alerts.insertTarget(id, companyId, { uuid, type: 'EMAIL', endpointId }, now);
    }
    const rules = receiver.rules.flatMap((rule): { alertType: string; networkId: number | null }[] =>
      rule.networkUUIDs === undefined ? [{ alertType: rule.alert, networkId: null }] : rule.networkUUIDs.map((uuid) => ({ alertType: rule.alert, networkId: networkIds.get(uuid) as number })),
    );
    await alerts.replaceRules(id, companyId, rules);
  }
}

/** A company's alert receivers in the import format, by label: their EMAIL targets and rules (rules grouped per alert). */
export async function readAlertReceivers(db: Kysely<Database>, companyId: number): Promise<ImportAlertReceiver[]> {
  const alerts = createAlertRepository({ db });
  const out: ImportAlertReceiver[] = [];
  for (const row of await alerts.listReceivers(companyId)) {
    const targets = (await alerts.listTargets(row.id)).filter((t) => t.type === 'EMAIL' && t.target !== null).map((t) => ({ type: 'EMAIL' as const, emailAddress: t.target as string }));
    // a receiver whose targets are all webhooks or Slack has nothing the format can carry
    if (targets.length === 0) continue;
    const rules = new Map<string, string[] | undefined>();
    for (const rule of await alerts.listRules(row.id)) {
      const networks = rules.has(rule.alertType) ? rules.get(rule.alertType) : [];
      rules.set(rule.alertType, rule.networkUuid === null || networks === undefined ? undefined : [...networks, rule.networkUuid]);
    }
    out.push({ UUID: row.uuid, label: row.label, targets, rules: [...rules].map(([alert, networkUUIDs]) => (networkUUIDs === undefined ? { alert } : { alert, networkUUIDs })) });
  }
  return out;
}
