import { onlineSince as onlineSinceAt } from '../kernel/online.js';
import type { Store } from '../db/store.js';
import { AppError, KEY_NOT_VALID, invariant } from '../kernel/errors.js';
import { RETENTION_DEFAULTS } from '../kernel/telemetry.js';
import { isUuid } from '../kernel/formats.js';
import type { Caller } from '../kernel/caller.js';
import type { ArgumentValues, ReadModel, ReadSettings, RootArgument, RootDefinition, RootRead, Selection } from './read.model.js';
import { compileKeyCheck, compileRead, runRead } from './read.repository.js';
import type { CompiledRead, ReadResult } from './read.repository.js';

/**
 * Checks a root field's arguments before the database: each argument's
 * format (text's rule, UUIDs, and inside input objects), then the root's own
 * rule (which may look at the `settings`, e.g. a retention). Undefined when
 * they are valid, else BAD_USER_INPUT naming the argument (a path into an
 * input object: `filter.stepSeconds`), for that field's error.
 */
export function checkRootArguments(field: string, root: RootDefinition, values: ArgumentValues, settings: ReadSettings = DEFAULT_READ_SETTINGS): AppError | undefined {
  const malformed = checkFormats(field, root.arguments, values, '');
  if (malformed !== undefined) return malformed;
  const problem = root.check?.(values, settings);
  if (problem === undefined) return undefined;
  return new AppError('BAD_USER_INPUT', `Argument "${problem.argument}" of "${field}" is not accepted: ${problem.message}`, { field: problem.argument });
}

function checkFormats(field: string, args: readonly RootArgument[], values: ArgumentValues, prefix: string): AppError | undefined {
  for (const argument of args) {
    const value = Object.hasOwn(values, argument.name) ? values[argument.name] : undefined;
    if (value === undefined || value === null) continue;
    const path = `${prefix}${argument.name}`;
    if (argument.type === 'input') {
      const inner = checkFormats(field, argument.fields, value as ArgumentValues, `${path}.`);
      if (inner !== undefined) return inner;
      continue;
    }
    const valid = formatCheck(argument);
    if (valid === undefined) continue;
    const elements: readonly unknown[] = Array.isArray(value) ? value : [value];
    const at = elements.findIndex((element) => typeof element !== 'string' || !valid(element));
    if (at === -1) continue;
    const bad = elements[at];
    const rule = argument.type === 'text' ? argument.rule : 'a UUID';
    const shown = typeof bad === 'string' ? JSON.stringify(bad.length > 80 ? `${bad.slice(0, 80)}…` : bad) : String(bad);
    return new AppError('BAD_USER_INPUT', `Argument "${path}" of "${field}" has an invalid value ${shown}: expected ${rule}.`, { field: path });
  }
  return undefined;
}

/** The format check of a text or UUID argument (a list of UUIDs: of each element); none for the types GraphQL coerces. */
function formatCheck(argument: RootArgument): ((value: string) => boolean) | undefined {
  if (argument.type === 'text') return argument.check;
  return argument.type === 'uuid' || argument.type === 'uuidList' ? isUuid : undefined;
}

/**
 * The arguments that name what a root reads (UUIDs, lists of them, text):
 * those an UNAUTHORIZED error lists, e.g. `networksClients(companyUUID, networkUUIDs)`.
 */
export function namingArguments(root: RootDefinition): string {
  return root.arguments
    .filter((argument) => argument.type === 'uuid' || argument.type === 'uuidList' || argument.type === 'text')
    .map((argument) => argument.name)
    .join(', ');
}

/** The defaults of the TELEMETRY_* retention settings, for reads without a server config (the CLI, unit tests). */
export const DEFAULT_READ_SETTINGS: ReadSettings = {
  rawRetentionHours: RETENTION_DEFAULTS.rawRetentionHours,
  rollupRetentionDays: RETENTION_DEFAULTS.rollupRetentionDays,
  hourlyRetentionDays: RETENTION_DEFAULTS.hourlyRetentionDays,
  dailyRetentionDays: RETENTION_DEFAULTS.dailyRetentionDays,
};

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
  /** How long telemetry is kept, for the roots' rules (DEFAULT_READ_SETTINGS when absent). */
  readonly settings?: ReadSettings;
}

/**
 * Reads for a caller. Every read goes through here: the compiled statement
 * takes the caller's company as a parameter of every root, so nothing of
 * another company can be read, and absent and foreign rows look the same.
 * Online state is derived in the statement from the time of each device's
 * last report against `online` (DEVICE_OFFLINE_AFTER_SECONDS); roots' rules
 * see `settings` (how long telemetry is kept).
 */
export function createReadService(store: Store, model: ReadModel, online: OnlineRule, options: ReadServiceOptions = {}) {
  const offlineMs = online.offlineAfterSeconds * 1000;
  const settings = options.settings ?? DEFAULT_READ_SETTINGS;
  // the key's state is read on the primary alongside every read that may run on the replica; none without one
  const keyCheck = options.replica === true && store.replica !== undefined ? compileKeyCheck(store.dialect) : undefined;
  const onlineSince = (): string => onlineSinceAt(online.now().getTime(), offlineMs);
  return {
    /** The read model the reads compile with (assembled from the features by graphql/read-model.ts). */
    model,

    /** What roots' rules may depend on besides their arguments (checkRootArguments). */
    settings,

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
    async run(compiled: CompiledRead, caller: Caller, args: readonly ArgumentValues[], deadline?: number): Promise<ReadResult> {
      const params = { keyId: caller.keyId, companyId: caller.companyId, args, onlineSince, now: online.now };
      const result = await runRead(store, compiled, params, deadline, keyCheck);
      if (!result.keyActive) throw KEY_NOT_VALID.create();
      return result;
    },

    /**
     * Reads one object of the caller's company back after a write, through a
     * root whose first argument is `arg`, as JSON
     * text keyed by the selection's response keys; null when it is not there.
     * No key check: the write's own transaction has just made it.
     */
    async readObject(root: string, selection: Selection, caller: Caller, arg: string): Promise<string | null> {
      const compiled = compileRead(store.dialect, model, [{ root, selection }], false);
      const definition = Object.hasOwn(model.internalRoots, root) ? model.internalRoots[root] : model.roots[root];
      const first = definition?.arguments[0]?.name;
      invariant(first !== undefined, `read-object-root:${root}`);
      const params = { keyId: null, companyId: caller.companyId, args: [{ [first]: arg }], onlineSince, now: online.now };
      const result = await runRead(store, compiled, params);
      return result.roots[0] ?? null;
    },
  };
}

export type ReadService = ReturnType<typeof createReadService>;
