import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { AppError } from '../../errors.js';
import { CLI_ACTOR, buildChange } from '../audit/audit.service.js';
import type { Actor, AuditService } from '../audit/audit.service.js';
import { unique } from '../write/write.rules.js';
import { createCompanyRepository } from './company.repository.js';
import type { CompanyRow } from './company.repository.js';
import { SLUG_RULE, isSlug } from './company.rules.js';

/** Rules of companies; `audit` records their creation, `now` is the clock of creation times. */
export function createCompanyService(store: Store, audit: Pick<AuditService, 'recordIn'>, now: () => Date = () => new Date()) {
  const repository = createCompanyRepository(store);
  return {
    /**
     * Creates a company; the slug must be valid and unused. Recorded as
     * `company.create` in the new company's audit log, in the same transaction.
     */
    async create(input: { slug: string; name: string }, actor: Actor = CLI_ACTOR): Promise<CompanyRow> {
      if (!isSlug(input.slug)) {
        throw new AppError('BAD_USER_INPUT', `slug "${input.slug}" is not valid: use ${SLUG_RULE}.`, { field: 'slug' });
      }
      const name = input.name.trim();
      if (name === '' || name.length > 200) {
        throw new AppError('BAD_USER_INPUT', 'name must be 1 to 200 characters.', { field: 'name' });
      }
      const taken = () => new AppError('CONFLICT', `A company with slug "${input.slug}" already exists.`, { field: 'slug' });
      if (await repository.findBySlug(input.slug)) throw taken();
      const created = store.transaction(async (tx) => {
        const company = await createCompanyRepository(tx).insert({ uuid: randomUUID(), slug: input.slug, name, createdAt: now().toISOString() });
        const change = buildChange('company.create', company.uuid, null, { slug: company.slug, name: company.name });
        await audit.recordIn(tx, actor, [{ companyId: company.id, change }]);
        return company;
      });
      return unique(store, created, taken);
    },

    /** The company with this slug; NOT_FOUND when there is none. */
    async getBySlug(slug: string): Promise<CompanyRow> {
      const company = await repository.findBySlug(slug);
      if (!company) throw new AppError('NOT_FOUND', `No company with slug "${slug}".`, { field: 'company' });
      return company;
    },

    async findById(id: number): Promise<CompanyRow | undefined> {
      return repository.findById(id);
    },

    async list(): Promise<CompanyRow[]> {
      return repository.list();
    },

    /** True when the store holds no company yet (a first start). */
    async isEmpty(): Promise<boolean> {
      return (await repository.count()) === 0;
    },
  };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
