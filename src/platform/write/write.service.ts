import type { SqlContext, Store } from '../../db/store.js';
import { AppError, KEY_NOT_VALID, invariant } from '../../kernel/errors.js';
import type { Actor, Caller } from '../../kernel/caller.js';
import type { AuditService, Recorded } from '../audit/audit.service.js';
import { unique } from './write.rules.js';

/**
 * "Is this key still valid" at `at`, read in the write's transaction `tx`: a
 * port, so platform/ imports no feature (services.ts passes api-key.service's
 * isKeyActiveIn).
 */
export type KeyCheck = (tx: SqlContext, keyId: number, at: string) => Promise<boolean>;

/**
 * What every write by a caller shares: the scope check, one transaction that
 * also confirms the key is not revoked, exactly one audit entry, and driver
 * failures turned into the errors a caller should see.
 */
export function createWriteService(store: Store, audit: AuditService, isKeyActive: KeyCheck, now: () => Date = () => new Date()) {
  return {
    /** The clock writes stamp their rows with (the audit log's, in tests an injected one). */
    now,

    /**
     * Runs one write for the caller. FORBIDDEN for a read-only caller,
     * UNAUTHENTICATED when its key was revoked (checked inside the
     * transaction, so a revoked key cannot write); otherwise `fn` runs in one
     * transaction with its audit entry, and nothing stays when it throws.
     */
    async run<T>(caller: Caller, fn: (tx: SqlContext) => Promise<Recorded<T>>): Promise<T> {
      if (caller.scope !== 'read_write') {
        throw new AppError('FORBIDDEN', 'This API key can only read: writes need a key with scope read_write.');
      }
      try {
        return await audit.record(caller.companyId, actorOf(caller), async (tx) => {
          if (caller.keyId !== null && !(await isKeyActive(tx, caller.keyId, now().toISOString()))) {
            throw KEY_NOT_VALID.create();
          }
          return fn(tx);
        });
      } catch (error) {
        throw store.classifyError(error);
      }
    },

    /** `unique()` of write.rules.ts on this service's store. */
    unique<T>(statement: Promise<T>, conflict: () => AppError): Promise<T> {
      return unique(store, statement, conflict);
    },
  };
}


export type WriteService = ReturnType<typeof createWriteService>;

/** The actor of a caller: the dashboard's user when given, else the API key. */
export function actorOf(caller: Caller): Actor {
  if (caller.actor !== undefined) return caller.actor;
  invariant(caller.keyUuid !== null, 'write-caller-without-actor');
  return { type: 'api_key', id: caller.keyUuid, label: caller.label };
}
