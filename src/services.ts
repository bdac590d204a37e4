import type { Store } from './db/store.js';
import { createApiKeyService } from './modules/api-key/api-key.service.js';
import { createCompanyService } from './modules/company/company.service.js';
import { createImportService } from './modules/import/import.service.js';
import { createReadService } from './modules/read/read.service.js';
import { createUserService } from './modules/user/user.service.js';
import type { UserServiceOptions } from './modules/user/user.service.js';

/**
 * The services of one process, over one store. The server, the CLI and tests
 * use the same ones; `users` takes the session lifetime and, in tests, a clock.
 */
export function createServices(store: Store, options: { users?: UserServiceOptions } = {}) {
  const companies = createCompanyService(store);
  return {
    companies,
    apiKeys: createApiKeyService(store, companies),
    reads: createReadService(store),
    imports: createImportService(store),
    users: createUserService(store, companies, options.users),
  };
}

export type Services = ReturnType<typeof createServices>;
