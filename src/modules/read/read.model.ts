import type { Caller } from '../api-key/api-key.service.js';

/**
 * The read model: how GraphQL fields map to tables, and what else a feature
 * declares about GraphQL. Each feature's `<feature>.graphql.ts` declares its
 * part with these types and helpers, src/graphql/ assembles the parts, and
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

/** One root to read: which root (a Query field's, or an internal one's name), and what to select below it. */
export interface RootRead {
  readonly root: string;
  readonly selection: Selection;
}

/** How a column's value becomes JSON. */
export type ScalarType = 'string' | 'boolean' | 'integer' | 'datetime';

/**
 * The values of the request a mapping's SQL may refer to, beyond its row:
 * each call adds a parameter and returns its placeholder.
 */
export interface SqlContext {
  /**
   * The time (a timestamp parameter) from which a device counts as online:
   * a report observed at or after it is younger than DEVICE_OFFLINE_AFTER_SECONDS.
   * Compared at read time, so online state is right on every process without a cache.
   */
  onlineSince(): string;
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
      readonly table: string;
      readonly join: (child: string, parent: string, context: SqlContext) => string;
      readonly orderBy?: (child: string) => string;
    };

/** The rows of another table listed below a row, in a documented order (by `id` when none is given). */
export type ListMapping = FieldMapping & { readonly kind: 'list' };

/** Field mappings by GraphQL type name, then field name. */
export type TypeMappings = Readonly<Record<string, Readonly<Record<string, FieldMapping>>>>;

/**
 * The one argument of a root: its GraphQL name and how its value looks. A
 * UUID needs no more; text names its format check and the rule error
 * messages quote.
 */
export type RootArgument =
  | { readonly name: string; readonly type: 'uuid' }
  | { readonly name: string; readonly type: 'text'; readonly check: (value: string) => boolean; readonly rule: string };

/**
 * Where a root field starts: the row of `table` that its argument names
 * inside the caller's company (`where`, from the scoping helpers below) and,
 * for a list root, the relation listed below that row.
 */
export interface RootDefinition {
  readonly table: string;
  readonly argument: RootArgument;
  /** The where-clause for the row aliased `t`, given the argument's and the company id's placeholders. */
  readonly where: (t: string, arg: string, company: string) => string;
  readonly list?: ListMapping;
}

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
 * Online by the time of the last report (`lastReport`, an expression that is
 * NULL before the first): true while it is younger than the offline window;
 * before any report, the stored flag (`stored`) as imported or created.
 */
export const onlineByLastReport = (lastReport: string, stored: string, context: SqlContext): string =>
  // NULL >= x is NULL: one evaluation of `lastReport`, the stored flag when there is no report
  `coalesce(${lastReport} >= ${context.onlineSince()}, ${stored})`;

// Company scoping, once for every root: a root's row is looked up by its argument *and* the caller's company.

/** A row that belongs to a company directly (`company_id`). */
export const inCompany =
  (column: string) =>
  (t: string, arg: string, company: string): string =>
    `${t}.${column} = ${arg} AND ${t}.company_id = ${company}`;

/** The caller's company itself. */
export const isCompany =
  (column: string) =>
  (t: string, arg: string, company: string): string =>
    `${t}.${column} = ${arg} AND ${t}.id = ${company}`;

/** A row that belongs to a company through its network (VLANs, SSIDs). */
export const inNetworkOfCompany =
  (column: string) =>
  (t: string, arg: string, company: string): string =>
    `${t}.${column} = ${arg} AND ${t}.network_id IN (SELECT id FROM networks WHERE company_id = ${company})`;

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
}

/** An object a payload field reads back after the write: through which root (by name), with which argument. */
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
