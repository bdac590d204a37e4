import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { CLI_ACTOR, buildChange } from '../../platform/audit/audit.service.js';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { KEY_SCOPES } from '../../kernel/caller.js';
import type { Actor, Caller, KeyScope } from '../../kernel/caller.js';
import type { CompanyService } from '../company/company.service.js';
import { createApiKeyRepository } from './api-key.repository.js';
import type { ApiKeyRow } from './api-key.repository.js';
import { generateKey, hashKey, isWellFormedKey } from './api-key.token.js';

/** A key as listed: never its value or hash. */
export interface ApiKeyInfo {
  readonly id: string;
  readonly company: string;
  readonly label: string;
  readonly prefix: string;
  readonly scope: KeyScope;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** How long a process lets a key's last-used time lag while the key is in use. */
export const LAST_USED_REFRESH_MS = 60_000;
/** How often pending last-used times are written. */
const LAST_USED_FLUSH_MS = 1_000;
const CACHE_SIZE = 10_000;

/**
 * The life cycle of API keys (create, list, revoke) and authentication.
 *
 * Authentication caches only what never changes for a key (its company,
 * label, scope), by hash. Whether a key is revoked is never cached: the
 * compiled read statement checks it in the same round trip as the data, and
 * other paths call `isActive`. So a revocation holds for the very next request
 * on every process.
 */
export function createApiKeyService(
  store: Store,
  companies: CompanyService,
  audit: AuditService,
  now: () => Date = () => new Date(),
) {
  const repository = createApiKeyRepository(store);
  const cache = new Map<string, Caller>();
  const lastUsed = createLastUsedTracker(repository.touch, now);

  async function getRow(id: string, companyId: number | undefined): Promise<ApiKeyRow> {
    const row = await repository.findByUuid(id);
    if (!row || (companyId !== undefined && row.companyId !== companyId)) {
      throw new AppError('NOT_FOUND', `No API key with id "${id}".`, { field: 'id' });
    }
    return row;
  }

  function forget(keyId: number): void {
    cache.forEach((caller, hash) => {
      if (caller.keyId === keyId) cache.delete(hash);
    });
  }

  return {
    /**
     * Creates a key for the company; the value is returned here and never
     * again. Recorded in the audit log as `api_key.create` by `actor`
     * (the CLI when not given), without the value or its hash.
     */
    async create(
      input: { companySlug: string; label: string; scope?: string },
      actor: Actor = CLI_ACTOR,
    ): Promise<ApiKeyInfo & { key: string }> {
      const company = await companies.getBySlug(input.companySlug);
      const label = input.label.trim();
      if (label === '' || label.length > TEXT_MAX.apiKeyLabel) {
        throw new AppError('BAD_USER_INPUT', `label must be 1 to ${TEXT_MAX.apiKeyLabel} characters, e.g. "billing-sync".`, {
          field: 'label',
        });
      }
      const scope = input.scope ?? 'read';
      if (!(KEY_SCOPES as readonly string[]).includes(scope)) {
        throw new AppError('BAD_USER_INPUT', `scope must be one of ${KEY_SCOPES.join(', ')}.`, { field: 'scope' });
      }
      const generated = generateKey();
      const uuid = randomUUID();
      const createdAt = now().toISOString();
      await audit.record(company.id, actor, async (tx) => {
        await createApiKeyRepository(tx).insert({
          uuid,
          companyId: company.id,
          label,
          prefix: generated.prefix,
          hash: generated.hash,
          scope,
          createdAt,
        });
        // a key's audit change: its id, label, scope and revocation, never its value, prefix or hash
        return { result: undefined, change: buildChange('api_key.create', uuid, null, { id: uuid, label, scope, revokedAt: null }) };
      });
      return {
        id: uuid,
        company: company.slug,
        label,
        prefix: generated.prefix,
        scope: scope as KeyScope,
        createdAt,
        lastUsedAt: null,
        revokedAt: null,
        key: generated.key,
      };
    },

    /** Every key of the company, oldest first, revoked ones included. */
    async list(companySlug: string): Promise<ApiKeyInfo[]> {
      const company = await companies.getBySlug(companySlug);
      return (await repository.listByCompany(company.id)).map(toInfo);
    },

    /** The key with this id, within the company when one is given; NOT_FOUND otherwise. */
    async get(id: string, companyId?: number): Promise<ApiKeyInfo> {
      return toInfo(await getRow(id, companyId));
    },

    /**
     * Revokes a key at once. Idempotent: revoking a revoked key returns it
     * unchanged (and records nothing). With `companyId`, a key of another
     * company is NOT_FOUND. Recorded as `api_key.revoke` by `actor`.
     */
    async revoke(id: string, companyId?: number, actor: Actor = CLI_ACTOR): Promise<ApiKeyInfo> {
      const row = await getRow(id, companyId);
      const revokedAt = now().toISOString();
      await audit.record(row.companyId, actor, async (tx) => {
        const revoked = await createApiKeyRepository(tx).revoke(id, revokedAt);
        const before = { id, label: row.label, scope: row.scope, revokedAt: null };
        return { result: undefined, change: revoked ? buildChange('api_key.revoke', id, before, { ...before, revokedAt }) : null };
      });
      forget(row.id);
      return toInfo((await repository.findByUuid(id)) ?? row);
    },

    /**
     * The caller a bearer token stands for, or undefined for a malformed,
     * unknown or revoked key. A cached key is not re-checked here: see above.
     * `statements` counts the lookups it ran (0 or 1), for the request log.
     */
    async authenticate(token: string, statements: { count: number } = { count: 0 }): Promise<Caller | undefined> {
      if (!isWellFormedKey(token)) return undefined;
      const hash = hashKey(token);
      const cached = cache.get(hash);
      if (cached !== undefined) {
        lastUsed.touch(cached.keyId as number);
        return cached;
      }
      statements.count += 1;
      const row = await repository.findValidByHash(hash);
      if (!row) return undefined;
      const caller: Caller = {
        companyId: row.companyId,
        companySlug: row.companySlug,
        keyId: row.id,
        keyUuid: row.uuid,
        label: row.label,
        scope: row.scope as KeyScope,
      };
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(hash, caller);
      lastUsed.seed(row.id, row.lastUsedAt);
      lastUsed.touch(row.id);
      return caller;
    },

    /** True when the key still exists and is not revoked: one indexed read. */
    async isActive(keyId: number): Promise<boolean> {
      return repository.isActive(keyId);
    },

    /** Drops a key from the cache, e.g. after a statement found it revoked. */
    forget,

    /** Writes pending last-used times now (the background writer does this every second). */
    async flushLastUsed(): Promise<void> {
      await lastUsed.flush();
    },

    /** Starts writing last-used times in the background. */
    start(onError: (error: unknown) => void): void {
      lastUsed.start(onError);
    },

    /** Writes pending last-used times and stops the background writer. */
    async stop(): Promise<void> {
      await lastUsed.stop();
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.uuid,
    company: row.companySlug,
    label: row.label,
    prefix: row.prefix,
    scope: row.scope as KeyScope,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

/**
 * Batches last-used writes: a key's first use in a process is written within
 * a second, then at most once per LAST_USED_REFRESH_MS while it is in use,
 * so requests never wait for a write and the database sees one UPDATE a
 * second at most.
 */
function createLastUsedTracker(write: (ids: readonly number[], at: string) => Promise<void>, now: () => Date) {
  const written = new Map<number, number>();
  /** Key id to the time of the request that made it due. */
  const pending = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;
  let report: (error: unknown) => void = () => undefined;

  const writePending = async () => {
    if (pending.size === 0) return;
    const due = [...pending];
    pending.clear();
    // one statement for all: every pending use happened within the last second
    const at = Math.max(...due.map(([, time]) => time));
    try {
      await write(
        due.map(([id]) => id),
        new Date(at).toISOString(),
      );
    } catch (error) {
      for (const [id, time] of due) pending.set(id, Math.max(time, pending.get(id) ?? 0));
      report(error);
    }
  };

  // one write at a time, and flush() resolves only when every earlier write has landed
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => (writing = writing.then(writePending));

  return {
    flush,
    seed(id: number, lastUsedAt: string | null) {
      if (!written.has(id)) written.set(id, lastUsedAt === null ? 0 : Date.parse(lastUsedAt));
    },
    touch(id: number) {
      const at = now().getTime();
      if (at - (written.get(id) ?? 0) < LAST_USED_REFRESH_MS) return;
      written.set(id, at);
      pending.set(id, at);
    },
    start(onError: (error: unknown) => void) {
      report = onError;
      timer ??= setInterval(() => void flush(), LAST_USED_FLUSH_MS).unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
