import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { AppError, invariant } from '../../kernel/errors.js';
import type { Actor, Caller } from '../../kernel/caller.js';
import { CLI_ACTOR, buildChange } from '../../platform/audit/audit.service.js';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { isGiven, requireBoolean, requireSomeChange, unique } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createCompanyRepository } from './company.repository.js';
import type { CompanyRow } from './company.repository.js';
import { DOMAIN_RULE, SLUG_RULE, isSlug, isWebsiteDomain } from './company.rules.js';

/** Rules of companies; `audit` records their creation, `now` is the clock of creation times. */
export function createCompanyService(store: Store, audit: Pick<AuditService, 'recordIn'>, now: () => Date = () => new Date()) {
  const repository = createCompanyRepository(store);
  return {
    /**
     * Creates a company; the slug must be valid and unused. Recorded as
     * `company.create` in the new company's audit log, in the same transaction.
     */
    async create(input: { slug: string; name: string; isCustomer?: boolean; websiteDomain?: string | null }, actor: Actor = CLI_ACTOR): Promise<CompanyRow> {
      if (!isSlug(input.slug)) {
        throw new AppError('BAD_USER_INPUT', `slug "${input.slug}" is not valid: use ${SLUG_RULE}.`, { field: 'slug' });
      }
      const name = input.name.trim();
      if (name === '' || name.length > TEXT_MAX.companyName) {
        throw new AppError('BAD_USER_INPUT', `name must be 1 to ${TEXT_MAX.companyName} characters.`, { field: 'name' });
      }
      const details = { isCustomer: input.isCustomer ?? true, websiteDomain: checkWebsiteDomain(input.websiteDomain ?? null, 'websiteDomain') };
      const taken = () => new AppError('CONFLICT', `A company with slug "${input.slug}" already exists.`, { field: 'slug' });
      if (await repository.findBySlug(input.slug)) throw taken();
      const created = store.transaction(async (tx) => {
        const company = await createCompanyRepository(tx).insert({ uuid: randomUUID(), slug: input.slug, name, createdAt: now().toISOString(), ...details });
        const change = buildChange('company.create', company.uuid, null, { slug: company.slug, name: company.name, ...details });
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

/** A website domain or null; BAD_USER_INPUT naming `field` otherwise. */
export function checkWebsiteDomain(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && isWebsiteDomain(value)) return value;
  throw new AppError('BAD_USER_INPUT', `${field} ${JSON.stringify(value)} is not valid: use ${DOMAIN_RULE}, or null for none.`, { field });
}

/** The fields updateCompany changes. */
export interface CompanyUpdate {
  readonly isCustomer?: boolean;
  readonly websiteDomain?: string | null;
}

/** The caller's own company's details, written like every API write: one audited transaction for a read_write caller. */
export function createCompanyWriteService(writes: WriteService) {
  return {
    /** Changes the given fields of the caller's company; absent fields stay. Audited as `company.update`. */
    async update(caller: Caller, input: CompanyUpdate): Promise<CompanyRow> {
      return writes.run(caller, async (tx) => {
        requireSomeChange(input, ['isCustomer', 'websiteDomain']);
        const companies = createCompanyRepository(tx);
        const row = await companies.findById(caller.companyId);
        invariant(row !== undefined, 'company-update-caller-company');
        const details = {
          isCustomer: isGiven(input, 'isCustomer') ? requireBoolean(input.isCustomer, 'isCustomer') : row.isCustomer,
          websiteDomain: isGiven(input, 'websiteDomain') ? checkWebsiteDomain(input.websiteDomain, 'websiteDomain') : row.websiteDomain,
        };
        await companies.update(row.id, details);
        const before = { isCustomer: row.isCustomer, websiteDomain: row.websiteDomain };
        return { result: { ...row, ...details }, change: buildChange('company.update', row.uuid, before, details) };
      });
    },
  };
}

export type CompanyWriteService = ReturnType<typeof createCompanyWriteService>;
