import { TEXT_MAX } from '../../kernel/rules.js';
import { isUuid } from '../../kernel/formats.js';
import { randomUUID } from 'node:crypto';
import type { SqlContext, Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { CLI_ACTOR, buildChange } from '../../platform/audit/audit.service.js';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { KEY_SCOPES } from '../../kernel/caller.js';
import type { Actor, Caller, KeyScope } from '../../kernel/caller.js';
import type { CompanyService } from '../company/company.service.js';
import { createApiKeyRepository } from './api-key.repository.js';
import type { ApiKeyRow } from './api-key.repository.js';
import { createLastUsedTracker } from './api-key.last-used.js';
import { allowlistOf, createAddressCheck, parseAllowlist, parseExpiry, storedAllowlist } from './api-key.rules.js';
import { generateKey, hashKey, isWellFormedKey } from './api-key.token.js';

export { LAST_USED_REFRESH_MS } from './api-key.last-used.js';

/** A key as listed: never its value or hash. */
export interface ApiKeyInfo {
  readonly id: string;
  readonly company: string;
  readonly label: string;
  readonly prefix: string;
  readonly scope: KeyScope;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** The client address of that use (X-Forwarded-For's under TRUST_PROXY); null before the first. */
  readonly lastUsedAddress: string | null;
  readonly revokedAt: string | null;
  /** When the key stops working, as if revoked; null for never. */
  readonly expiresAt: string | null;
  /** When its API_KEY_EXPIRING alert was sent (queued for the company's rules, docs/alerts.md); null while it was not. */
  readonly expiryAlertedAt: string | null;
  /** The CIDR prefixes requests with the key must come from; empty for any address. */
  readonly allowedAddresses: readonly string[];
}

/** What a key is created with besides its company and label. */
export interface KeyTerms {
  readonly scope?: string;
  /** A lifetime (`90d`, `12h`) or an RFC 3339 date (api-key.rules.ts parseExpiry); none: never expires. */
  readonly expires?: string;
  /** CIDR prefixes or addresses (parseAllowlist); none or empty: any address. */
  readonly allow?: readonly string[];
}

/** What authentication tells besides its answer: the lookups it ran, and the key a refused token names. */
export interface AuthenticationNotes {
  /** Statements run (0 or 1), for the request log. */
  count: number;
  /** A token of a key netgraph has, refused (revoked, expired, an address outside its allowlist): that key. */
  refused?: Caller;
}

const CACHE_SIZE = 10_000;
/**
 * How long a process admits a key from its cache before reading the key
 * again: the bound on how late another process's allowlist change applies
 * here (revocation and expiry are checked on every request regardless).
 */
export const KEY_CACHE_REFRESH_MS = 10_000;

/** What the cache holds of a key: what never changes, and its allowlist as of `loadedAt`. */
interface CachedKey {
  readonly caller: Caller;
  readonly admits: (address: string | undefined) => boolean;
  readonly expiresAt: number;
  readonly loadedAt: number;
}

/**
 * The life cycle of API keys (create, list, change the allowlist, rotate,
 * revoke) and authentication.
 *
 * Authentication caches what never changes for a key (its company, label,
 * scope), by hash, with its allowlist and expiry as read at most
 * KEY_CACHE_REFRESH_MS ago. Whether a key is revoked or expired is never
 * taken from the cache alone: the compiled read statement checks it in the
 * same round trip as the data, and other paths call `isActive`. So a
 * revocation, or an expiry a rotation set, holds for the very next request on
 * every process.
 */
export function createApiKeyService(
  store: Store,
  companies: CompanyService,
  audit: AuditService,
  now: () => Date = () => new Date(),
) {
  const repository = createApiKeyRepository(store);
  const cache = new Map<string, CachedKey>();
  const lastUsed = createLastUsedTracker(repository.touch, now);

  async function getRow(id: string, companyId: number | undefined): Promise<ApiKeyRow> {
    const row = await repository.findByUuid(id);
    if (!row || (companyId !== undefined && row.companyId !== companyId)) {
      throw new AppError('NOT_FOUND', `No API key with id "${id}".`, { field: 'id' });
    }
    return row;
  }

  /** The row of a key that can still be changed: NOT_FOUND as getRow, BAD_USER_INPUT when revoked or expired. */
  async function getLiveRow(id: string, companyId: number | undefined, doing: string): Promise<ApiKeyRow> {
    const row = await getRow(id, companyId);
    if (row.revokedAt !== null || (row.expiresAt !== null && Date.parse(row.expiresAt) <= now().getTime())) {
      throw new AppError('BAD_USER_INPUT', `API key "${row.label}" (${id}) is ${row.revokedAt !== null ? 'revoked' : 'expired'}: ${doing} a key that still works, or create a new one.`, { field: 'id' });
    }
    return row;
  }

  function forget(keyId: number): void {
    cache.forEach((entry, hash) => {
      if (entry.caller.keyId === keyId) cache.delete(hash);
    });
  }

  /** Inserts a new key in `tx` and returns it with its value; the caller records the change. */
  async function insertKey(tx: SqlContext, company: { id: number; slug: string }, label: string, scope: KeyScope, expiresAt: string | null, allowed: readonly string[], createdAt: string) {
    const generated = generateKey();
    const uuid = randomUUID();
    await createApiKeyRepository(tx).insert({
      uuid,
      companyId: company.id,
      label,
      prefix: generated.prefix,
      hash: generated.hash,
      scope,
      createdAt,
      expiresAt,
      allowedAddresses: storedAllowlist(allowed),
    });
    const info: ApiKeyInfo & { key: string } = {
      id: uuid,
      company: company.slug,
      label,
      prefix: generated.prefix,
      scope,
      createdAt,
      lastUsedAt: null,
      lastUsedAddress: null,
      revokedAt: null,
      expiresAt,
      expiryAlertedAt: null,
      allowedAddresses: allowed,
      key: generated.key,
    };
    return info;
  }

  return {
    /**
     * Creates a key for the company; the value is returned here and never
     * again. Recorded in the audit log as `api_key.create` by `actor`
     * (the CLI when not given), without the value or its hash.
     */
    async create(input: { companySlug: string; label: string } & KeyTerms, actor: Actor = CLI_ACTOR): Promise<ApiKeyInfo & { key: string }> {
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
      const createdAt = now();
      const expiresAt = input.expires === undefined ? null : parseExpiry(input.expires, createdAt);
      const allowed = parseAllowlist(input.allow ?? []);
      return audit.record(company.id, actor, async (tx) => {
        const key = await insertKey(tx, company, label, scope as KeyScope, expiresAt, allowed, createdAt.toISOString());
        return { result: key, change: buildChange('api_key.create', key.id, null, auditedKey(key)) };
      });
    },

    /** Every key of the company, oldest first, revoked and expired ones included. */
    async list(companySlug: string): Promise<ApiKeyInfo[]> {
      const company = await companies.getBySlug(companySlug);
      return (await repository.listByCompany(company.id)).map(toInfo);
    },

    /** The key with this id, within the company when one is given; NOT_FOUND otherwise. */
    async get(id: string, companyId?: number): Promise<ApiKeyInfo> {
      return toInfo(await getRow(id, companyId));
    },

    /**
     * The key named by its id or by the start of its visible prefix
     * (`ngk_AbC123`, as listed, with or without the trailing "…"), within the
     * company when one is given: NOT_FOUND for none (another company's key
     * too), BAD_USER_INPUT when a prefix names several.
     */
    async find(idOrPrefix: string, companyId?: number): Promise<ApiKeyInfo & { keyId: number; companyId: number }> {
      const ref = idOrPrefix.trim().replace(/…$/, '');
      if (isUuid(ref)) {
        const row = await getRow(ref, companyId);
        return { ...toInfo(row), keyId: row.id, companyId: row.companyId };
      }
      if (!/^ngk_[0-9A-Za-z]{1,34}$/.test(ref)) {
        throw new AppError('BAD_USER_INPUT', `"${idOrPrefix}" is neither a key id (a UUID) nor the start of a key's visible prefix such as ngk_AbC123: see "netgraph keys list".`, { field: 'id' });
      }
      const rows = await repository.findByPrefix(ref, companyId);
      const [row] = rows;
      if (row === undefined) throw new AppError('NOT_FOUND', `No API key whose prefix starts with "${ref}".`, { field: 'id' });
      if (rows.length > 1) {
        throw new AppError('BAD_USER_INPUT', `"${ref}" is the start of several keys' prefixes (${rows.map((r) => `${r.prefix}… ${r.uuid}`).join(', ')}): give more of it, or the key's id.`, { field: 'id' });
      }
      return { ...toInfo(row), keyId: row.id, companyId: row.companyId };
    },

    /**
     * Replaces the key's allowlist (parseAllowlist; empty: any address). It
     * applies at once in this process and within KEY_CACHE_REFRESH_MS in
     * every other. Recorded as `api_key.allow` when it changes.
     */
    async setAllowlist(id: string, allow: readonly string[], companyId?: number, actor: Actor = CLI_ACTOR): Promise<ApiKeyInfo> {
      const allowed = parseAllowlist(allow);
      const row = await getLiveRow(id, companyId, 'change the allowlist of');
      const before = auditedKey(toInfo(row));
      await audit.record(row.companyId, actor, async (tx) => {
        await createApiKeyRepository(tx).setAllowlist(row.id, storedAllowlist(allowed));
        const changed = storedAllowlist(allowed) !== row.allowedAddresses;
        return { result: undefined, change: changed ? buildChange('api_key.allow', id, before, { ...before, allowedAddresses: allowed }) : null };
      });
      forget(row.id);
      return toInfo((await repository.findByUuid(id)) ?? row);
    },

    /**
     * Rotates a key: a successor with the same company, label, scope,
     * lifetime (a key that expired 90 days after its creation gets 90 days
     * from now) and allowlist, whose value is returned here and never again;
     * the old key expires `overlapSeconds` from now (or earlier, as before).
     * One transaction, recorded as `api_key.create` of the successor and
     * `api_key.rotate` of the old key. A revoked or expired key cannot be rotated.
     */
    async rotate(id: string, overlapSeconds: number, companyId?: number, actor: Actor = CLI_ACTOR): Promise<{ successor: ApiKeyInfo & { key: string }; rotated: ApiKeyInfo }> {
      const row = await getLiveRow(id, companyId, 'rotate');
      const at = now();
      const lifetime = row.expiresAt === null ? null : Date.parse(row.expiresAt) - Date.parse(row.createdAt);
      const successorExpiry = lifetime === null ? null : new Date(at.getTime() + lifetime).toISOString();
      const overlapEnd = new Date(at.getTime() + overlapSeconds * 1000).toISOString();
      const oldExpiry = row.expiresAt !== null && row.expiresAt < overlapEnd ? row.expiresAt : overlapEnd;
      const company = { id: row.companyId, slug: row.companySlug };
      const successor = await store.transaction(async (tx) => {
        const key = await insertKey(tx, company, row.label, row.scope as KeyScope, successorExpiry, allowlistOf(row.allowedAddresses), at.toISOString());
        await createApiKeyRepository(tx).setExpiry(row.id, oldExpiry);
        const before = auditedKey(toInfo(row));
        await audit.recordIn(tx, actor, [
          { companyId: row.companyId, change: buildChange('api_key.create', key.id, null, { ...auditedKey(key), rotatedFrom: id }) },
          { companyId: row.companyId, change: buildChange('api_key.rotate', id, before, { ...before, expiresAt: oldExpiry, successor: key.id }) },
        ]);
        return key;
      });
      forget(row.id);
      return { successor, rotated: toInfo((await repository.findByUuid(id)) ?? row) };
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
        const before = auditedKey(toInfo(row));
        return { result: undefined, change: revoked ? buildChange('api_key.revoke', id, before, { ...before, revokedAt }) : null };
      });
      forget(row.id);
      return toInfo((await repository.findByUuid(id)) ?? row);
    },

    /**
     * The caller a bearer token stands for when it comes from `address` (the
     * client's, see http/client-address.ts), or undefined for a malformed,
     * unknown, revoked or expired key, or an address outside its allowlist:
     * all alike. A cached key is not re-checked for revocation here (see
     * above). `notes` gets the lookups it ran (0 or 1), for the request log,
     * and the key of a refused token when netgraph has it (the refusal is in
     * that key's request log).
     */
    async authenticate(token: string, notes: AuthenticationNotes = { count: 0 }, address?: string): Promise<Caller | undefined> {
      if (!isWellFormedKey(token)) return undefined;
      const hash = hashKey(token);
      const at = now();
      let entry = cache.get(hash);
      if (entry === undefined || at.getTime() - entry.loadedAt >= KEY_CACHE_REFRESH_MS) {
        notes.count += 1;
        const found = await repository.findByHash(hash, at.toISOString());
        if (!found?.valid) {
          cache.delete(hash);
          if (found) notes.refused = cacheEntry(found.row, at.getTime()).caller;
          return undefined;
        }
        const row = found.row;
        entry = cacheEntry(row, at.getTime());
        if (!cache.has(hash) && cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(hash, entry);
        lastUsed.seed(row.id, row.lastUsedAt);
      }
      if (at.getTime() >= entry.expiresAt || !entry.admits(address)) {
        notes.refused = entry.caller;
        return undefined;
      }
      lastUsed.touch(entry.caller.keyId as number, address ?? null);
      return entry.caller;
    },

    /** True when the key still exists, is not revoked and has not expired: one indexed read. */
    async isActive(keyId: number): Promise<boolean> {
      return repository.isActive(keyId, now().toISOString());
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

/**
 * True when the key exists, is not revoked and has not expired at `at`, read
 * in `tx` (kernel/key-check.ts): the check every write runs inside its own
 * transaction (write.service.ts, which services.ts hands it to).
 */
export function isKeyActiveIn(tx: SqlContext, keyId: number, at: string): Promise<boolean> {
  return createApiKeyRepository(tx).isActive(keyId, at);
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.uuid,
    company: row.companySlug,
    label: row.label,
    prefix: row.prefix,
    scope: row.scope as KeyScope,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    lastUsedAddress: row.lastUsedAddress,
    revokedAt: row.revokedAt,
    expiresAt: row.expiresAt,
    expiryAlertedAt: row.expiryAlertedAt,
    allowedAddresses: allowlistOf(row.allowedAddresses),
  };
}

/** A key's audit values: its id, label, scope, revocation, expiry and allowlist, never its value, prefix or hash. */
function auditedKey(key: ApiKeyInfo) {
  return { id: key.id, label: key.label, scope: key.scope, revokedAt: key.revokedAt, expiresAt: key.expiresAt, allowedAddresses: key.allowedAddresses };
}

/** The cache entry of a valid key's row, read at `loadedAt`. */
function cacheEntry(row: ApiKeyRow, loadedAt: number): CachedKey {
  return {
    caller: {
      companyId: row.companyId,
      companySlug: row.companySlug,
      keyId: row.id,
      keyUuid: row.uuid,
      label: row.label,
      scope: row.scope as KeyScope,
    },
    admits: createAddressCheck(allowlistOf(row.allowedAddresses)),
    expiresAt: row.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(row.expiresAt),
    loadedAt,
  };
}

