import type { Store } from '../../db/store.js';
import { AppError } from '../../errors.js';
import { isUuid } from '../formats/formats.js';
import type { Caller } from '../api-key/api-key.service.js';
import { SERIAL_RULE, SLUG_RULE, isSerialNumber, isSlug } from '../company/company.rules.js';
import { compileRead, runRead } from './read.repository.js';
import type { CompiledRead, InternalRootName, ReadResult, RootName, RootRead, Selection } from './read.repository.js';

/** The one argument of each root field, and how a valid value looks. */
const ROOT_ARGUMENTS: Record<RootName, { readonly name: string; readonly check: (v: string) => boolean; readonly rule: string }> = {
  virtualDevice: { name: 'UUID', check: isUuid, rule: 'a UUID' },
  hardwareDevice: { name: 'serialNumber', check: isSerialNumber, rule: SERIAL_RULE },
  networksForCompany: { name: 'companySlug', check: isSlug, rule: SLUG_RULE },
  virtualDevicesForNetwork: { name: 'networkUUID', check: isUuid, rule: 'a UUID' },
  networkClients: { name: 'networkUUID', check: isUuid, rule: 'a UUID' },
  companyBySlug: { name: 'slug', check: isSlug, rule: SLUG_RULE },
};

/** True for the names of the read root fields. */
export function isRootName(name: string): name is RootName {
  return Object.hasOwn(ROOT_ARGUMENTS, name);
}

/**
 * Reads for a caller. Every read goes through here: the compiled statement
 * takes the caller's company as a parameter of every root, so nothing of
 * another company can be read, and absent and foreign rows look the same.
 */
export function createReadService(store: Store) {
  return {
    /** The name of the root field's argument. */
    argumentName(root: RootName): string {
      return ROOT_ARGUMENTS[root].name;
    },

    /** Checks a root argument's format; BAD_USER_INPUT naming the argument when it is malformed. */
    checkArgument(root: RootName, value: unknown): AppError | undefined {
      const argument = ROOT_ARGUMENTS[root];
      if (typeof value === 'string' && argument.check(value)) return undefined;
      const shown = typeof value === 'string' ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : String(value);
      return new AppError(
        'BAD_USER_INPUT',
        `Argument "${argument.name}" of "${root}" has an invalid value ${shown}: expected ${argument.rule}.`,
        { field: argument.name },
      );
    },

    /** Compiles the reads of one operation into one statement; cache the result per document. */
    compile(reads: readonly RootRead[], withKeyCheck: boolean): CompiledRead {
      return compileRead(store.dialect, reads, withKeyCheck);
    },

    /**
     * Runs a compiled read for the caller. Throws UNAUTHENTICATED when the
     * caller's key was revoked, as checked by the statement itself, and
     * TIMEOUT when it outlives `deadline` (a performance.now() time).
     */
    async run(compiled: CompiledRead, caller: Caller, args: readonly unknown[], deadline?: number): Promise<ReadResult> {
      const params = { keyId: caller.keyId, companyId: caller.companyId, args };
      const result = await runRead(store, compiled, params, deadline);
      if (!result.keyActive) throw new AppError('UNAUTHENTICATED', 'The API key is not valid.');
      return result;
    },

    /**
     * Reads one object of the caller's company back after a write, as JSON
     * text keyed by the selection's response keys; null when it is not there.
     * No key check: the write's own transaction has just made it.
     */
    async readObject(root: RootName | InternalRootName, selection: Selection, caller: Caller, arg: string): Promise<string | null> {
      const compiled = compileRead(store.dialect, [{ root, selection }], false);
      const result = await runRead(store, compiled, { keyId: null, companyId: caller.companyId, args: [arg] });
      return result.roots[0] ?? null;
    },
  };
}

export type ReadService = ReturnType<typeof createReadService>;
