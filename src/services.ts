import type { Store } from './db/store.js';
import { createApiKeyService } from './modules/api-key/api-key.service.js';
import { createCompanyService } from './modules/company/company.service.js';
import { createImportService } from './modules/import/import.service.js';
import { createReadService } from './modules/read/read.service.js';

/** The services of one process, over one store. The server, the CLI and tests use the same ones. */
export function createServices(store: Store) {
  const companies = createCompanyService(store);
  return {
    companies,
    apiKeys: createApiKeyService(store, companies),
    reads: createReadService(store),
    imports: createImportService(store),
  };
}

export type Services = ReturnType<typeof createServices>;
