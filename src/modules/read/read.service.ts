import type { Store } from '../../db/store.js';
import { AppError } from '../../errors.js';
import { isUuid } from '../formats/formats.js';
import type { Caller } from '../api-key/api-key.service.js';
import type { ReadModel, RootDefinition, RootRead, Selection } from './read.model.js';
import { compileKeyCheck, compileRead, runRead } from './read.repository.js';
import type { CompiledRead, ReadResult } from './read.repository.js';

/**
 * Checks the format of a root field's argument: undefined when it is valid,
 * else BAD_USER_INPUT naming the argument, for that field's error.
 */
export function checkRootArgument(field: string, root: RootDefinition, value: unknown): AppError | undefined {
  const argument = root.argument;
  const valid = argument.type === 'uuid' ? isUuid : argument.check;
  if (typeof value === 'string' && valid(value)) return undefined;
  const rule = argument.type === 'uuid' ? 'a UUID' : argument.rule;
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : String(value);
  return new AppError('BAD_USER_INPUT', `Argument "${argument.name}" of "${field}" has an invalid value ${shown}: expected ${rule}.`, {
    field: argument.name,
  });
}

/** How reads tell online from offline: the clock, and how long after its last report a device counts as offline. */
export interface OnlineRule {
  readonly now: () => Date;
  readonly offlineAfterSeconds: number;
}

/** How a read service reads. */
export interface ReadServiceOptions {
  /**
   * `run` may read from the store's read replica, when it has one (the API's
   * queries); the key check still reads the primary. Off: every read sees the
   * primary, and so the caller's own latest writes (the dashboard). readObject
   * always reads the primary.
   */
  readonly replica?: boolean;
}

/**
 * Reads for a caller. Every read goes through here: the compiled statement
 * takes the caller's company as a parameter of every root, so nothing of
 * another company can be read, and absent and foreign rows look the same.
 * Online state is derived in the statement from the time of each device's
 * last report against `online` (DEVICE_OFFLINE_AFTER_SECONDS).
 */
export function createReadService(store: Store, model: ReadModel, online: OnlineRule, options: ReadServiceOptions = {}) {
  const offlineMs = online.offlineAfterSeconds * 1000;
  // the key's state is read on the primary alongside every read that may run on the replica; none without one
  const keyCheck = options.replica === true && store.replica !== undefined ? compileKeyCheck(store.dialect) : undefined;
  const onlineSince = (): string => new Date(online.now().getTime() - offlineMs).toISOString();
  return {
    /** The read model the reads compile with (assembled from the features by graphql/read-model.ts). */
    model,

    /** Compiles the reads of one operation into one statement; cache the result per document. */
    compile(reads: readonly RootRead[], withKeyCheck: boolean): CompiledRead {
      return compileRead(store.dialect, model, reads, withKeyCheck);
    },

    /**
     * Runs a compiled read for the caller. Throws UNAUTHENTICATED when the
     * caller's key was revoked, as checked by the statement itself (or, on
     * the replica, by its key check on the primary at the same time), and
     * TIMEOUT when it outlives `deadline` (a performance.now() time).
     */
    async run(compiled: CompiledRead, caller: Caller, args: readonly unknown[], deadline?: number): Promise<ReadResult> {
      const params = { keyId: caller.keyId, companyId: caller.companyId, args, onlineSince };
      const result = await runRead(store, compiled, params, deadline, keyCheck);
      if (!result.keyActive) throw new AppError('UNAUTHENTICATED', 'The API key is not valid.');
      return result;
    },

    /**
     * Reads one object of the caller's company back after a write, as JSON
     * text keyed by the selection's response keys; null when it is not there.
     * No key check: the write's own transaction has just made it.
     */
    async readObject(root: string, selection: Selection, caller: Caller, arg: string): Promise<string | null> {
      const compiled = compileRead(store.dialect, model, [{ root, selection }], false);
      const result = await runRead(store, compiled, { keyId: null, companyId: caller.companyId, args: [arg], onlineSince });
      return result.roots[0] ?? null;
    },
  };
}

export type ReadService = ReturnType<typeof createReadService>;
