import { onlineSql } from '../kernel/online.js';
import type { ParamType, SqlDialect } from '../db/dialect.js';
import type { Caller } from '../kernel/caller.js';
import type { ErrorCode } from '../kernel/errors.js';

/**
 * The read model: how GraphQL fields map to tables, and what else a feature
 * declares about GraphQL. Each feature's `<feature>.graphql.ts` declares its
 * part with these types and helpers, src/engine/ assembles the parts, and
 * the read compiler (read.repository.ts) turns a selection into SQL with the
 * assembled read model.
 */

/**
 * What to read, independent of GraphQL: for an object type, the fields to
 * return under their response keys, in order. Built by graphql/plan.ts.
 */
export interface Selection {
  readonly typeName: string;
  readonly fields: readonly SelectedField[];
}

/** One field of a selection: `__typename`, a column, or a nested selection. */
export interface SelectedField {
  readonly key: string;
  readonly name: string;
  readonly selection?: Selection;
}

/**
 * One root to read: which root (a Query field's, or an internal one's name),
 * what to select below it, and the names of the arguments the document
 * passes it (literals or variables; absent: any may be given).
 */
export interface RootRead {
  readonly root: string;
  readonly selection: Selection;
  readonly argumentsGiven?: ReadonlySet<string>;
}

/**
 * How a column's value becomes JSON (`float`: a number that may have a fraction, e.g. an average; `json`: the
 * expression already yields JSON text, a list of scalars).
 */
export type ScalarType = 'string' | 'boolean' | 'integer' | 'float' | 'datetime' | 'json';

/**
 * What a mapping's (or a value root's) SQL may use beyond its row: request
 * values as parameters, the dialect's pieces and the compiler's own builders.
 * Every call that adds a parameter returns its placeholder, and parameters
 * are numbered in the order of the calls (SQLite's are positional): call
 * them in the order their placeholders appear in the text, as a template
 * literal does when each call sits where its placeholder goes.
 */
export interface SqlContext {
  /** The dialect the text is for: its JSON builders (jsonString, jsonNumber, jsonArray, ...) and list pieces (inList, listRows). */
  readonly dialect: SqlDialect;
  /**
   * The time (a timestamp parameter) from which a device counts as online:
   * a report observed at or after it is younger than DEVICE_OFFLINE_AFTER_SECONDS.
   * Compared at read time, so online state is right on every process without a cache.
   */
  onlineSince(): string;
  /**
   * The value of an argument of the root being compiled, by name, or by path
   * into an input object (`filter.stepSeconds`), typed as the root declares
   * it (on PostgreSQL an int, boolean, timestamp or list placeholder carries
   * its cast, so it can be used in arithmetic; a list is compared with
   * dialect.inList or read with dialect.listRows). NULL when absent and without default.
   */
  arg(path: string): string;
  /**
   * False when the document passes the root no argument `name` at all, so
   * the text is compiled for its absence (an optional filter's SQL can be
   * left out); true when it does, even as a variable that may be null.
   */
  mayBeGiven(name: string): boolean;
  /** The caller's company id (a bigint parameter). */
  company(): string;
  /** The time of the request (a timestamp parameter, cast on PostgreSQL). */
  now(): string;
  /**
   * A parameter computed when the read runs from the root's argument values
   * (defaults applied) and the request's time: a window's start, a bucket count.
   */
  value(type: ParamType, compute: (args: ArgumentValues, now: Date) => unknown): string;
  /** A new table alias, unique within the statement. */
  alias(): string;
  /** JSON object text of `selection` (mapped by the read model) for the row aliased `t`. */
  object(selection: Selection, t: string): string;
  /** JSON array text of `selection` over the rows of `mapping` below the row aliased `parent`; '[]' when none. */
  list(mapping: ListMapping, selection: Selection, parent: string): string;
}

/**
 * How one GraphQL field reads: a column of the row; a value computed from
 * the row and the request (`computed`); an object embedded in the same row
 * (null when `nullWhen` holds); or the row, or rows, of another table joined
 * to this one.
 */
export type FieldMapping =
  | { readonly kind: 'scalar'; readonly column: string; readonly type: ScalarType; readonly nullable?: boolean }
  | {
      readonly kind: 'computed';
      readonly type: ScalarType;
      readonly nullable?: boolean;
      /** The SQL expression for the row aliased `t`. */
      readonly sql: (t: string, context: SqlContext) => string;
    }
  | { readonly kind: 'embedded'; readonly nullWhen: (alias: string) => string }
  | {
      readonly kind: 'object' | 'list';
      /**
       * A table, or a derived table built with the context (a parenthesised
       * subquery, e.g. with GROUP BY), which may refer to the parent row aliased `parent`.
       */
      readonly table: string | ((context: SqlContext, parent: string) => string);
      readonly join: (child: string, parent: string, context: SqlContext) => string;
      readonly orderBy?: (child: string) => string;
    };

/** The rows of another table listed below a row, in a documented order (by `id` when none is given). */
export type ListMapping = FieldMapping & { readonly kind: 'list' };

/** Field mappings by GraphQL type name, then field name. */
export type TypeMappings = Readonly<Record<string, Readonly<Record<string, FieldMapping>>>>;

/**
 * An argument of a root: its GraphQL name (as the Query field declares it,
 * which also says whether it is required and its SDL default) and how its
 * value looks. A UUID, Int, Boolean, DateTime or list of UUIDs is checked by
 * GraphQL's coercion; text names its format check and the rule error
 * messages quote; an input object lists its fields. `default` stands in
 * when the value is absent or null.
 */
export type RootArgument = {
  readonly name: string;
  readonly default?: unknown;
} & (
  | { readonly type: 'uuid' | 'int' | 'boolean' | 'datetime' | 'uuidList' | 'textList' }
  | { readonly type: 'text'; readonly check: (value: string) => boolean; readonly rule: string }
  | { readonly type: 'input'; readonly fields: readonly RootArgument[] }
);

/** A root field's argument values by name, as coerced by GraphQL (SDL defaults applied; input objects as records). */
export type ArgumentValues = Readonly<Record<string, unknown>>;

/** Why a root refuses its arguments: the argument (a path into an input object: `filter.stepSeconds`) and what to do. */
export interface ArgumentProblem {
  readonly argument: string;
  /** Says what is wrong and what to send instead, e.g. "must be at least 60: ask for a longer step." */
  readonly message: string;
}

/**
 * What a root's rule may depend on besides its arguments: how long the
 * telemetry is kept (TELEMETRY_* settings), so a window reaching back further is refused.
 */
export interface ReadSettings {
  readonly rawRetentionHours: number;
  readonly rollupRetentionDays: number;
  /** The tiers of the tiered rollups (docs/metrics.md, "Tiers"). */
  readonly hourlyRetentionDays: number;
  readonly dailyRetentionDays: number;
}

/** What every root declares: its arguments, and a rule over them checked before the database (none: every well-formed value goes). */
interface RootBase {
  readonly arguments: readonly RootArgument[];
  readonly check?: (args: ArgumentValues, settings: ReadSettings) => ArgumentProblem | undefined;
  /**
   * What a NULL answer means when not UNAUTHORIZED's "not found, or not
   * accessible": the error's code, message and the argument it names
   * (`extensions.argument`; the change feed's expired cursor).
   */
  readonly nullAnswer?: { readonly code: ErrorCode; readonly message: string; readonly argument: string };
}

/**
 * Where a root field starts: the row of `table` that its arguments name
 * inside the caller's company (`where`, from the scoping helpers below) and,
 * for a list root, the relation listed below that row.
 */
export interface TableRoot extends RootBase {
  readonly kind?: 'table';
  readonly table: string;
  /** The where-clause for the row aliased `t` (context.arg and context.company give the placeholders). */
  readonly where: (t: string, context: SqlContext) => string;
  readonly list?: ListMapping;
}

/**
 * A root computed by one SQL expression: its JSON text for `selection` (an
 * object or a list), or NULL when something it names is not the caller's
 * company's, which answers null with UNAUTHORIZED like any root. It may hold
 * aggregated subqueries; context.object renders a selection over a row with
 * the read model, context.dialect has the JSON builders.
 */
export interface ValueRoot extends RootBase {
  readonly kind: 'value';
  readonly json: (context: SqlContext, selection: Selection) => string;
}

/** A root: a row (or the rows below it) looked up in the caller's company, or a value computed in SQL. */
export type RootDefinition = TableRoot | ValueRoot;

/** Roots by name. */
export type RootDefinitions = Readonly<Record<string, RootDefinition>>;

/** The assembled read model: every mapped type; every Query field's root, and the internal roots, by name. */
export interface ReadModel {
  readonly types: TypeMappings;
  readonly roots: RootDefinitions;
  readonly internalRoots: RootDefinitions;
}

/** A text column; null only where `nullable`. */
export const text = (column: string, nullable = false): FieldMapping => ({ kind: 'scalar', column, type: 'string', nullable });
/** A boolean column. */
export const bool = (column: string): FieldMapping => ({ kind: 'scalar', column, type: 'boolean' });
/** An integer column. */
export const integer = (column: string): FieldMapping => ({ kind: 'scalar', column, type: 'integer' });
/** A timestamp column, as RFC 3339 UTC with milliseconds. */
export const dateTime = (column: string): FieldMapping => ({ kind: 'scalar', column, type: 'datetime' });

/**
 * The one online rule (docs/reports.md), of a hardware device row `h`: true
 * while its last report is younger than the offline window; before a report
 * counted (none yet, or only stale ones), the stored flag as imported or
 * created. HardwareDevice.isConnectedToBackend reads it, and
 * VirtualDevice.isOnline reads it of the assigned hardware, so the two never
 * disagree.
 */
export const hardwareOnline = (h: string, context: SqlContext): string =>
  onlineSql(`${h}.last_seen_at`, context.onlineSince(), `${h}.is_connected_to_backend`);

// Company scoping, once for every root: a root's row is looked up by its argument *and* the caller's company.

/** A row that belongs to a company directly (`company_id`), named by argument `argument` in `column`. */
export const inCompany =
  (column: string, argument: string) =>
  (t: string, context: SqlContext): string =>
    `${t}.${column} = ${context.arg(argument)} AND ${t}.company_id = ${context.company()}`;

/** The caller's company itself, named by argument `argument` in `column`. */
export const isCompany =
  (column: string, argument: string) =>
  (t: string, context: SqlContext): string =>
    `${t}.${column} = ${context.arg(argument)} AND ${t}.id = ${context.company()}`;

/** A row that belongs to a company through its network (VLANs, SSIDs), named by argument `argument` in `column`. */
export const inNetworkOfCompany =
  (column: string, argument: string) =>
  (t: string, context: SqlContext): string =>
    `${t}.${column} = ${context.arg(argument)} AND ${t}.network_id IN (SELECT id FROM networks WHERE company_id = ${context.company()})`;

/**
 * True when every network the list argument `argument` names is the caller's
 * company's (duplicates allowed; an empty list holds): a root over several
 * networks answers NULL (UNAUTHORIZED) when any is not, so nothing of the
 * caller's own networks leaks into an answer that names another's.
 */
export const allNetworksInCompany = (argument: string, context: SqlContext): string =>
  `(SELECT count(*) FROM networks an WHERE ${context.dialect.inList('an.uuid', context.arg(argument))} AND an.company_id = ${context.company()}) = ` +
  `(SELECT count(DISTINCT al.value) FROM ${context.dialect.listRows(context.arg(argument), 'al')})`;

/** True when the company the UUID argument `argument` names is the caller's. */
export const isCallersCompany = (argument: string, context: SqlContext): string =>
  `EXISTS (SELECT 1 FROM companies ac WHERE ac.uuid = ${context.arg(argument)} AND ac.id = ${context.company()})`;

/** The id of the network of the hardware device aliased `h` (through its virtual device); NULL when unassigned. */
export const networkIdOfHardware = (h: string): string =>
  `(SELECT nv.network_id FROM virtual_devices nv WHERE nv.id = ${h}.virtual_device_id)`;

/**
 * The ids of the hardware assigned to the devices of the network aliased `n`,
 * for `IN`: each device's hardware looked up by its unique virtual_device_id
 * (aliases `<prefix>v`, `<prefix>h`). As a join, PostgreSQL's generic plan
 * without statistics hashed every hardware device of every network instead.
 * A device without hardware yields NULL, which IN never matches.
 */
export const hardwareIdsOfNetwork = (prefix: string, n: string): string =>
  `(SELECT (SELECT ${prefix}h.id FROM hardware_devices ${prefix}h WHERE ${prefix}h.virtual_device_id = ${prefix}v.id) ` +
  `FROM virtual_devices ${prefix}v WHERE ${prefix}v.network_id = ${n}.id)`;

/** The UUID of a network by the id expression `networkId`. */
export const networkUuidOf = (networkId: string): string => `(SELECT nn.uuid FROM networks nn WHERE nn.id = ${networkId})`;

/** A field of a root's input-object argument `filter` (undefined when the argument or the field is absent). */
export const filterField = (args: ArgumentValues, field: string): unknown => {
  const filter = args.filter;
  return typeof filter === 'object' && filter !== null ? (filter as Record<string, unknown>)[field] : undefined;
};

/** A nullable column of `type`. */
export const nullable = (column: string, type: ScalarType): FieldMapping => ({ kind: 'scalar', column, type, nullable: true });

/** The one UUID argument most roots take. */
export const uuidArgument = (name: string): readonly RootArgument[] => [{ name, type: 'uuid' }];

/**
 * How many elements a list field may hold, for its complexity cost, given
 * the literal argument values of the root field it is read under (undefined
 * when they are variables or unknown, e.g. inside a fragment: then the most
 * it can hold). Replaces COMPLEXITY_WEIGHTS.assumedListSize for that field.
 */
export type ListSize = (rootArgs: ArgumentValues | undefined) => number;

/**
 * One feature's GraphQL, in one place. The schema, the read model and the
 * mutation resolvers are assembled from every feature of graphql/features.ts;
 * start-up fails when they disagree (graphql/assemble.ts). `S` names the
 * services the feature's resolvers call.
 */
export interface GraphQLFeature<S = never> {
  /**
   * SDL with descriptions: the feature's enums, object types, inputs and
   * payloads, and its root fields as `extend type Query { ... }` and
   * `extend type Mutation { ... }`.
   */
  readonly sdl: string;
  /** How each field of the feature's object types reads, by type name, then field name. */
  readonly readModel: TypeMappings;
  /** The root of each of the feature's Query fields, by field name. */
  readonly roots: RootDefinitions;
  /** Roots that are no Query field: mutations (and the dashboard) read an object back through them, scoped like every root. */
  readonly internalRoots: RootDefinitions;
  /** The resolver of each of the feature's Mutation fields, by field name. */
  readonly mutations: Readonly<Record<string, MutationResolver<S>>>;
  /** List sizes for complexity that depend on arguments, by `Type.field` (`Query.root` for a root); the rest assume 5. */
  readonly listSizes?: Readonly<Record<string, ListSize>>;
  /**
   * How many items a list returns per element of its cost, by `Type.field`,
   * where that is not one: the actual cost counts a list's items in these
   * units (a metrics series: ten buckets to an element, as its size counts them).
   */
  readonly listItemsPerElement?: Readonly<Record<string, number>>;
}

/** An object a payload field reads back after the write: through which root (by name), with which value of its first argument. */
export interface ObjectReference {
  readonly root: string;
  readonly arg: string;
}

/**
 * What a mutation resolver returns: plain values by payload field name (ids
 * of deleted objects), and the objects to read back through the compiled
 * read path, by payload field name (null for none).
 */
export interface MutationPayload {
  readonly values?: Readonly<Record<string, unknown>>;
  readonly objects?: Readonly<Record<string, ObjectReference | null>>;
}

/** A Mutation field's input argument, as graphql-js coerced it. */
export type MutationInput = Readonly<Record<string, unknown>>;

/**
 * A thin adapter: calls one service method with the caller (which checks the
 * scope, validates, writes in one transaction and records the audit entry)
 * and says what the payload holds.
 */
export type MutationResolver<S> = (services: S, caller: Caller, input: MutationInput) => Promise<MutationPayload>;
