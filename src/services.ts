import type { Store } from './db/store.js';
import { createReadModel } from './engine/read-model.js';
import { createApiKeyService, isKeyActiveIn } from './features/api-key/api-key.service.js';
import { createAuditService } from './platform/audit/audit.service.js';
import { createCompanyService, createCompanyWriteService } from './features/company/company.service.js';
import { createHardwareDeviceService } from './features/device/hardware-device.service.js';
import { createVirtualDeviceService } from './features/device/virtual-device.service.js';
import { createImportService } from './platform/import/import.service.js';
import { createNetworkService } from './features/network/network.service.js';
import { createReadService } from './engine/read.service.js';
import { DEFAULT_REPORT_SETTINGS, createReportService } from './ingest/report.service.js';
import type { ReportSettings } from './ingest/report.service.js';
import { createBlockedClientService } from './features/security/blocked-client.service.js';
import { createFirewallRuleService } from './features/security/firewall-rule.service.js';
import { createIdsIpsService } from './features/security/ids-ips.service.js';
import { createInterVlanService } from './features/security/inter-vlan.service.js';
import { createSsidService } from './features/ssid/ssid.service.js';
import { createUserService } from './features/user/user.service.js';
import type { UserServiceOptions } from './features/user/user.service.js';
import { createVlanService } from './features/vlan/vlan.service.js';
import { createWriteService } from './platform/write/write.service.js';
import { RETRY_SCHEDULE_MS, createDeliverer } from './features/webhook/webhook-delivery.service.js';
import { createDispatcher } from './features/webhook/webhook-dispatch.service.js';
import { createKeyRing } from './features/webhook/webhook.keys.js';
import { createWebhookService } from './features/webhook/webhook.service.js';
import { createAlertService } from './features/alert/alert.service.js';
import { createRequestLogService } from './features/request-log/request-log.service.js';
import type { RequestLogSettings } from './features/request-log/request-log.service.js';
import { createCollectorTargetService } from './features/collector-target/collector-target.service.js';
import { createCollectorRangeService } from './features/collector-range/collector-range.service.js';
import { createDiscoveredDeviceService } from './features/discovered-device/discovered-device.service.js';
import type { WebhookConfig } from './config.js';

/** Webhook settings for processes without a server config (the CLI's defaults come from its config too). */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookConfig = { allowPrivateTargets: false, encryptionKey: null, timeoutSeconds: 15, retryScheduleMs: RETRY_SCHEDULE_MS, smtp: null };

/**
 * The services of one process, over one store, with exactly one audit log
 * that every write records into. The server, the CLI and tests use the same
 * ones; `users` takes the session lifetime and, in tests, the clock of
 * sessions and lockouts; `now` is the clock of writes and of the audit log,
 * users' entries included (tests inject one); `reports` the settings and
 * clock of device reports (the request log's retention takes that clock
 * too); `webhooks` the webhook settings and the clock of their messages and
 * delivery schedule; `requestLog` API_REQUEST_LOG and API_REQUEST_LOG_DAYS.
 */
export function createServices(
  store: Store,
  options: {
    users?: UserServiceOptions;
    now?: () => Date;
    reports?: { settings: ReportSettings; now?: () => Date };
    webhooks?: { settings: WebhookConfig; now?: () => Date };
    requestLog?: RequestLogSettings;
  } = {},
) {
  const now = options.now ?? (() => new Date());
  const reportSettings = options.reports?.settings ?? DEFAULT_REPORT_SETTINGS;
  // the one audit log of the process: companies record their creation in it, and it finds companies by slug
  const audit = createAuditService(store, { getBySlug: (slug) => companies.getBySlug(slug) }, now);
  const companies = createCompanyService(store, audit, now);
  const writes = createWriteService(store, audit, isKeyActiveIn, now);
  const readModel = createReadModel();
  const online = { now: options.reports?.now ?? now, offlineAfterSeconds: reportSettings.offlineAfterSeconds };
  const webhookSettings = options.webhooks?.settings ?? DEFAULT_WEBHOOK_SETTINGS;
  const webhookNow = options.webhooks?.now ?? now;
  const box = createKeyRing(store, webhookSettings.encryptionKey);
  const apiKeys = createApiKeyService(store, companies, audit, now);
  return {
    companies,
    apiKeys,
    /** The per-key request log: its writer (the HTTP layer records into it), reads, retention. */
    requestLog: createRequestLogService(store, apiKeys, options.requestLog, { clock: options.reports?.now ?? now }),
    // on the primary: the dashboard and the mutations' read-back must see their own writes
    reads: createReadService(store, readModel, online, { settings: reportSettings }),
    // the API's queries: on the read replica when there is one (READ_DATABASE_URL), the key check on the primary
    replicaReads: createReadService(store, readModel, online, { replica: true, settings: reportSettings }),
    imports: createImportService(store, audit),
    audit,
    networks: createNetworkService(writes),
    virtualDevices: createVirtualDeviceService(writes),
    hardwareDevices: createHardwareDeviceService(writes),
    vlans: createVlanService(writes),
    ssids: createSsidService(writes),
    blockedClients: createBlockedClientService(writes),
    firewallRules: createFirewallRuleService(writes),
    interVlanPairs: createInterVlanService(writes),
    idsIps: createIdsIpsService(writes),
    companyWrites: createCompanyWriteService(writes),
    users: createUserService(store, companies, audit, options.users),
    reports: createReportService(store, reportSettings, options.reports?.now ?? now),
    webhooks: createWebhookService({ store, writes, companies, box, allowPrivateTargets: webhookSettings.allowPrivateTargets, now: webhookNow }),
    collectorTargets: createCollectorTargetService({ store, writes, box, now }),
    collectorRanges: createCollectorRangeService({ store, writes, box, now }),
    discoveredDevices: createDiscoveredDeviceService({ store, writes, box, now }),
    alerts: createAlertService({ store, writes, box, allowPrivateTargets: webhookSettings.allowPrivateTargets, canEmail: webhookSettings.smtp !== null, now: webhookNow }),
    /** The dispatcher and the deliverer the background tasks run (webhook.tasks.ts). */
    webhookWork: {
      dispatcher: createDispatcher(store, webhookNow, reportSettings.offlineAfterSeconds, webhookSettings.smtp !== null),
      deliverer: createDeliverer(
        store,
        box,
        { allowPrivateTargets: webhookSettings.allowPrivateTargets, timeoutMs: webhookSettings.timeoutSeconds * 1000, retryScheduleMs: webhookSettings.retryScheduleMs, smtp: webhookSettings.smtp },
        webhookNow,
      ),
    },
  };
}

export type Services = ReturnType<typeof createServices>;
