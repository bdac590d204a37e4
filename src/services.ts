import type { Store } from './db/store.js';
import { createReadModel } from './graphql/read-model.js';
import { createApiKeyService } from './modules/api-key/api-key.service.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createCompanyService, createCompanyWriteService } from './modules/company/company.service.js';
import { createHardwareDeviceService } from './modules/device/hardware-device.service.js';
import { createVirtualDeviceService } from './modules/device/virtual-device.service.js';
import { createImportService } from './modules/import/import.service.js';
import { createNetworkService } from './modules/network/network.service.js';
import { createReadService } from './modules/read/read.service.js';
import { DEFAULT_REPORT_SETTINGS, createReportService } from './modules/report/report.service.js';
import type { ReportSettings } from './modules/report/report.service.js';
import { createSsidService } from './modules/ssid/ssid.service.js';
import { createUserService } from './modules/user/user.service.js';
import type { UserServiceOptions } from './modules/user/user.service.js';
import { createVlanService } from './modules/vlan/vlan.service.js';
import { createWriteService } from './modules/write/write.service.js';

/**
 * The services of one process, over one store, with exactly one audit log
 * that every write records into. The server, the CLI and tests use the same
 * ones; `users` takes the session lifetime and, in tests, the clock of
 * sessions and lockouts; `now` is the clock of writes and of the audit log,
 * users' entries included (tests inject one); `reports` the settings and
 * clock of device reports.
 */
export function createServices(
  store: Store,
  options: { users?: UserServiceOptions; now?: () => Date; reports?: { settings: ReportSettings; now?: () => Date } } = {},
) {
  const now = options.now ?? (() => new Date());
  // the one audit log of the process: companies record their creation in it, and it finds companies by slug
  const audit = createAuditService(store, { getBySlug: (slug) => companies.getBySlug(slug) }, now);
  const companies = createCompanyService(store, audit, now);
  const writes = createWriteService(store, audit, now);
  const reportSettings = options.reports?.settings ?? DEFAULT_REPORT_SETTINGS;
  return {
    companies,
    apiKeys: createApiKeyService(store, companies, audit, now),
    reads: createReadService(store, createReadModel(), { now: options.reports?.now ?? now, offlineAfterSeconds: reportSettings.offlineAfterSeconds }, reportSettings),
    imports: createImportService(store, audit),
    audit,
    networks: createNetworkService(writes),
    virtualDevices: createVirtualDeviceService(writes),
    hardwareDevices: createHardwareDeviceService(writes),
    vlans: createVlanService(writes),
    ssids: createSsidService(writes),
    companyWrites: createCompanyWriteService(writes),
    users: createUserService(store, companies, audit, options.users),
    reports: createReportService(store, reportSettings, options.reports?.now ?? now),
  };
}

export type Services = ReturnType<typeof createServices>;
