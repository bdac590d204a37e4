import { randomUUID } from 'node:crypto';
import type { SqlContext, Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { toCanonicalDateTime } from '../../kernel/formats.js';
import { createAuditRepository } from './audit.repository.js';
import { recordFeedChanges } from '../changes/changes.record.js';
import type { AuditRow } from './audit.repository.js';
import type { Actor, ActorType } from '../../kernel/caller.js';

/** A row of the audit log as written: what other features read of an entry (the webhook dispatcher's audit alerts). */
export type { NewAuditRow } from './audit.repository.js';

/** The actor of CLI commands. */
export const CLI_ACTOR: Actor = { type: 'cli', id: null, label: 'netgraph CLI' };

/** One change to record: what was done to which object, with its values before and after. */
export interface AuditChange {
  /** `<object type>.<verb>`, e.g. `network.create`, `hardware.assign`, `api_key.revoke`. */
  readonly action: string;
  readonly objectType: string;
  /** The object's UUID, or the serial number of a hardware device. */
  readonly objectId: string;
  /** Plain JSON values; null for a create. */
  readonly before: unknown;
  /** Plain JSON values; null for a delete. */
  readonly after: unknown;
}

/**
 * The change `action` made to one object; its object type is the action's
 * prefix (`vlan` of `vlan.update`). `before` is null for a create, `after`
 * for a delete.
 */
export function buildChange(action: `${string}.${string}`, objectId: string, before: unknown, after: unknown): AuditChange {
  return { action, objectType: action.slice(0, action.indexOf('.')), objectId, before, after };
}

/** A change and the company whose audit log it goes to. */
export interface CompanyChange {
  readonly companyId: number;
  readonly change: AuditChange;
}

/** What a recorded write returns: its result, and the change to record (none when nothing changed). */
export interface Recorded<T> {
  readonly result: T;
  readonly change: AuditChange | null;
}

/** An entry of the audit log as listed. */
export interface AuditEntry {
  readonly id: string;
  readonly company: string;
  readonly occurredAt: string;
  readonly actor: Actor;
  readonly action: string;
  readonly objectType: string;
  readonly objectId: string;
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * How the audit log finds a company by its slug (the company service does it);
 * throws NOT_FOUND when there is none. A port, so audit never imports company.
 */
export interface CompanyLookup {
  getBySlug(slug: string): Promise<{ readonly id: number }>;
}

/**
 * The audit log: who changed what, when. Every write goes through `record`,
 * which writes the entry in the same transaction as the change, so a change
 * is never committed without its entry, nor an entry without its change.
 */
export function createAuditService(store: Store, companies: CompanyLookup, now: () => Date = () => new Date()) {
  /** Writes entries in the transaction `tx`: the one of the change they describe. */
  async function recordIn(tx: SqlContext, actor: Actor, entries: readonly CompanyChange[]): Promise<void> {
    const repository = createAuditRepository(tx);
    const occurredAt = now().toISOString();
    for (const { companyId, change } of entries) {
      const uuid = randomUUID();
      await repository.insert({
        uuid,
        companyId,
        occurredAt,
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label,
        action: change.action,
        objectType: change.objectType,
        objectId: change.objectId,
        before: change.before === null || change.before === undefined ? null : JSON.stringify(change.before),
        after: change.after === null || change.after === undefined ? null : JSON.stringify(change.after),
      });
      // the change feed's rows of the same change, in the same transaction (docs/changes.md)
      await recordFeedChanges(tx, companyId, change, occurredAt, uuid);
    }
  }

  return {
    /**
     * Runs `fn` in one transaction and records the change it returns, exactly
     * once, for the company and actor given. Rolls back everything when `fn`
     * or the recording throws.
     */
    async record<T>(companyId: number, actor: Actor, fn: (tx: SqlContext) => Promise<Recorded<T>>): Promise<T> {
      return store.transaction(async (tx) => {
        const { result, change } = await fn(tx);
        if (change !== null) await recordIn(tx, actor, [{ companyId, change }]);
        return result;
      });
    },

    /**
     * Records changes inside a transaction the caller runs, for changes whose
     * company exists only in that transaction (a company's creation, an
     * import): they commit or roll back together with what they describe.
     */
    recordIn,

    /**
     * A page of the company's entries, newest first: `limit` of them, older
     * than the entry `before` when given, and the cursor of the next older
     * page (null on the last one).
     */
    async newestPage(companyId: number, options: { before?: string; limit: number }): Promise<{ entries: AuditEntry[]; older: string | null }> {
      const rows = await createAuditRepository(store).newestPage({ companyId, limit: options.limit + 1, ...(options.before === undefined ? {} : { before: options.before }) });
      const entries = rows.slice(0, options.limit).map(toEntry);
      return { entries, older: rows.length > options.limit ? (entries.at(-1)?.id ?? null) : null };
    },

    /**
     * Entries oldest first, of one company (NOT_FOUND when there is no such
     * company) or of all; `since` (RFC 3339, inclusive) drops older ones.
     */
    async list(options: { companySlug?: string; since?: string } = {}): Promise<AuditEntry[]> {
      let since: string | undefined;
      if (options.since !== undefined) {
        since = toCanonicalDateTime(options.since);
        if (since === undefined) {
          throw new AppError('BAD_USER_INPUT', `since "${options.since}" is not an RFC 3339 timestamp such as 2026-11-21T17:03:00Z.`, {
            field: 'since',
          });
        }
      }
      const companyId = options.companySlug === undefined ? undefined : (await companies.getBySlug(options.companySlug)).id;
      const rows = await createAuditRepository(store).list({
        ...(companyId !== undefined ? { companyId } : {}),
        ...(since !== undefined ? { since } : {}),
      });
      return rows.map(toEntry);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.uuid,
    company: row.companySlug,
    occurredAt: row.occurredAt,
    actor: { type: row.actorType as ActorType, id: row.actorId, label: row.actorLabel },
    action: row.action,
    objectType: row.objectType,
    objectId: row.objectId,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
  };
}
