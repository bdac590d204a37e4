import { isIP } from 'node:net';
import type { ColumnDataType, Expression, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import { postgresArray } from './postgres-array.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Everything that differs between SQLite and PostgreSQL, in one place. The
 * rest of the code builds dialect-neutral SQL and asks this object for the
 * pieces that are not.
 *
 * The JSON helpers build JSON *text* by concatenation so that both stores
 * produce the same bytes: compact, keys in selection order (PostgreSQL's
 * json_build_object adds spaces and jsonb reorders keys).
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** The placeholder for the 1-based parameter `index`. */
  placeholder(index: number): string;
  /** JSON text of a text expression (a quoted, escaped string), NULL stays NULL. */
  jsonString(expr: string): string;
  /** JSON text of a boolean column. */
  jsonBoolean(expr: string): string;
  /** JSON text of an integer column. */
  jsonInteger(expr: string): string;
  /** JSON text of a timestamp column, as RFC 3339 UTC with milliseconds. */
  jsonDateTime(expr: string): string;
  /**
   * JSON text of a numeric expression that may have a fraction (a float, an
   * average); NULL stays NULL. A whole number prints without a fraction on
   * both stores; other values print PostgreSQL's shortest round-trip text and
   * SQLite's 15 significant digits, which agree up to 15 digits.
   */
  jsonNumber(expr: string): string;
  /**
   * A placeholder of a parameter of `type` as an expression: cast on
   * PostgreSQL where the context cannot tell its type (int, boolean,
   * timestamp, list), bare where a column gives it (uuid, text, bigint) and on SQLite.
   */
  typed(placeholder: string, type: ParamType): string;
  /** True when `expr` is an element of the list parameter `list` (a `typed` placeholder of a list type). */
  inList(expr: string, list: string): string;
  /** A FROM item of the elements of the list parameter `list`, as rows of `alias` with the column `value`. */
  listRows(list: string, alias: string): string;
  /** Seconds since the Unix epoch (with a fraction) of a timestamp expression. */
  epochSeconds(expr: string): string;
  /**
   * The start, in whole seconds since the Unix epoch, of the `step`-second
   * bucket (aligned to multiples of `step` since the epoch) that holds the
   * timestamp `expr`; `step` an integer expression that appears once in the
   * text (a parameter is bound once on SQLite). An integer.
   */
  epochBucket(expr: string, step: string): string;
  /** A timestamp expression (jsonDateTime takes it) of whole seconds since the Unix epoch. */
  fromEpochSeconds(expr: string): string;
  /** Like listRows, with a second column `position`: the element's 1-based place in the list. */
  orderedListRows(list: string, alias: string): string;
  /** A FROM item of the strings of the JSON array text `expr` (a column, say), as rows of `alias` with the text column `value`. */
  jsonTextRows(expr: string, alias: string): string;
  /**
   * True when the IP address text `expr` lies from `start` to `end`
   * (inclusive; text parameters of one family): addresses ordered as
   * numbers, every IPv4 one before every IPv6 one (PostgreSQL's inet order;
   * SQLite's `ip_order_key`, registered by sqlite.ts).
   */
  ipBetween(expr: string, start: string, end: string): string;
  /** The base64url text (no padding) of the UTF-8 bytes of a text expression (SQLite's `base64url`, registered by sqlite.ts). */
  base64url(expr: string): string;
  /**
   * True when the transaction whose id is the bigint expression `txid` (a
   * change row's, docs/changes.md) has finished for every reader, so no row
   * of a smaller id can still commit: on PostgreSQL, below the xmin of the
   * statement's snapshot; on SQLite, whose writes are serialized, always.
   */
  finishedTransaction(txid: string): string;
  /** The value a parameter of `type` is bound with on this store (SQLite: booleans as 0/1, lists as JSON text, canonical timestamps). */
  bindValue(type: ParamType, value: unknown): unknown;
  /**
   * JSON array text of `element` over the rows of `from` (which starts with a
   * table), ordered by `orderBy`; NULL when there are no rows.
   */
  jsonArray(element: string, fromWhere: string, orderBy: string): string;
  /**
   * For a store that coalesces concurrent reads (PostgreSQL): the statement
   * that evaluates `columns` once per caller. Parameter n is an array of the
   * callers' values of type `types[n - 1]`, read in `columns` as `b.p<n>`;
   * each caller's row also has its 1-based position as `i`. Undefined on a
   * store that runs each read on its own (SQLite: in process, nothing to save).
   */
  readonly batchOf?: (columns: string, types: readonly ParamType[]) => string;
  /** Column types for migrations. */
  readonly types: MigrationTypes;
  /** True for a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /** True when SELECT ... FOR UPDATE locks rows (PostgreSQL); SQLite has one writer and no such clause. */
  readonly rowLocks: boolean;
  /** The smaller of two nullable numeric expressions, NULL only when both are (SQLite's min() would give NULL). */
  least(a: string, b: string): string;
  /** The larger of two nullable numeric expressions, NULL only when both are. */
  greatest(a: string, b: string): string;
  /** True when the expressions `a` and `b` differ, NULL counting as a value (so never NULL itself). */
  differs(a: string, b: string): string;
  /**
   * The hidden columns that name a row of any table, for deletes in bounded
   * batches: rowid, or tableoid and ctid (a ctid alone repeats across the
   * partitions of a partitioned table).
   */
  readonly rowLocator: string;
  /** True when the raw time series are partitioned by day (PostgreSQL; see db/partitions.ts). */
  readonly partitionsByTime: boolean;
  /**
   * A relation named `alias` of `rows` (each an array of values in the order
   * of `columns`), bound as parameters whose number does not depend on the
   * rows: one typed array per column on PostgreSQL (unnest), one JSON text on
   * SQLite (json_each). Multi-row writes select from it, so a batch of any
   * size is one statement of one text. Booleans come out as 1/0 on SQLite,
   * as the columns store them.
   */
  rowSource(alias: string, columns: readonly RowColumn[], rows: readonly (readonly unknown[])[]): RawBuilder<unknown>;
  /**
   * True when `expr` is one of `values`, bound as one parameter (an array on
   * PostgreSQL: `= ANY`, which its planner uses as an index condition of the
   * scan whatever its statistics say; JSON text read by json_each on
   * SQLite). A join to a rowSource alone let PostgreSQL hash a whole table
   * (docs/benchmarks.md, "Ingest").
   */
  inValues(expr: string, type: RowType, values: readonly unknown[]): RawBuilder<unknown>;
  /**
   * How multi-row INSERTs take their rows: 'source' selects them from
   * rowSource, one text whatever the number of rows (PostgreSQL, where
   * unnest costs no more than VALUES); 'values' binds them as VALUES lists
   * in chunks of a few fixed sizes (SQLite, where json_each's per-column
   * extraction made 2,000 rows of 12 columns cost 19 against 13 ms).
   */
  readonly multiRowInsert: 'source' | 'values';
}

/** A column of a rowSource: its name and its SQL type. */
export type RowColumn = readonly [name: string, type: RowType];

/** The types a rowSource column may have. */
export type RowType = 'bigint' | 'integer' | 'float' | 'text' | 'boolean' | 'timestamptz' | 'uuid';

const POSTGRES_ARRAY_TYPES: Record<RowType, string> = {
  bigint: 'bigint[]',
  integer: 'integer[]',
  float: 'float8[]',
  text: 'text[]',
  boolean: 'boolean[]',
  timestamptz: 'timestamptz[]',
  uuid: 'uuid[]',
};

/**
 * The SQL type of a parameter of a compiled read. A statement with a list
 * parameter has no batch form (an array of arrays is not one PostgreSQL
 * array), so it is never coalesced with other callers' reads.
 */
export type ParamType = 'bigint' | 'uuid' | 'text' | 'timestamptz' | 'integer' | 'boolean' | 'uuid[]' | 'text[]';

/** True for the list types of ParamType. */
export const isListParam = (type: ParamType): boolean => type.endsWith('[]');

/** A timestamp parameter's value as the stored text (SQLite keeps canonical ISO 8601 UTC with milliseconds). */
function canonicalTimestamp(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'string') return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** Column types a migration needs, per dialect. */
export interface MigrationTypes {
  /** Text compared and ordered by code point on both stores. */
  readonly text: ColumnDataType | Expression<unknown>;
  readonly uuid: ColumnDataType | Expression<unknown>;
  readonly boolean: ColumnDataType;
  readonly timestamp: ColumnDataType;
  readonly integer: ColumnDataType;
  readonly id: ColumnDataType;
}

const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  placeholder: () => '?',
  jsonString: (expr) => `json_quote(${expr})`,
  jsonBoolean: (expr) => `(CASE WHEN ${expr} THEN 'true' ELSE 'false' END)`,
  jsonInteger: (expr) => `CAST(${expr} AS TEXT)`,
  // stored as canonical ISO 8601 text already
  jsonDateTime: (expr) => `json_quote(${expr})`,
  // a whole REAL prints as 1.0 in SQLite, as 1 on PostgreSQL; the subquery evaluates `expr` (and its parameters) once
  jsonNumber: (expr) =>
    `(SELECT CASE WHEN jn.v = CAST(jn.v AS INTEGER) THEN CAST(CAST(jn.v AS INTEGER) AS TEXT) ELSE json_quote(jn.v) END FROM (SELECT ${expr} AS v) jn)`,
  typed: (placeholder) => placeholder,
  inList: (expr, list) => `${expr} IN (SELECT value FROM json_each(${list}))`,
  listRows: (list, alias) => `json_each(${list}) AS ${alias}`,
  epochSeconds: (expr) => `unixepoch(${expr}, 'subsec')`,
  // unixepoch() without 'subsec' is whole seconds, rounded down; for times after 1970, s - s % step is the bucket's start
  epochBucket: (expr, step) => `(unixepoch(${expr}) - unixepoch(${expr}) % ${step})`,
  // the stored form of timestamps: ISO 8601 UTC with milliseconds
  fromEpochSeconds: (expr) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expr}, 'unixepoch')`,
  ipBetween: (expr, start, end) => `ip_order_key(${expr}) BETWEEN ip_order_key(${start}) AND ip_order_key(${end})`,
  base64url: (expr) => `base64url(${expr})`,
  finishedTransaction: () => '1 = 1',
  orderedListRows: (list, alias) => `(SELECT value, key + 1 AS position FROM json_each(${list})) AS ${alias}`,
  jsonTextRows: (expr, alias) => `json_each(${expr}) AS ${alias}`,
  bindValue: (type, value) => {
    if (value === null || value === undefined) return null;
    if (type === 'boolean') return value === true ? 1 : 0;
    if (type === 'uuid[]' || type === 'text[]') return JSON.stringify(value);
    return type === 'timestamptz' ? canonicalTimestamp(value) : value;
  },
  jsonArray: (element, fromWhere, orderBy) =>
    `(SELECT '[' || group_concat(${element}, ',' ORDER BY ${orderBy}) || ']' FROM ${fromWhere})`,
  types: {
    text: 'text',
    uuid: 'text',
    boolean: 'integer',
    timestamp: 'text',
    integer: 'integer',
    id: 'integer',
  },
  isUniqueViolation: (error) =>
    hasCode(error, 'SQLITE_CONSTRAINT_UNIQUE') || hasCode(error, 'SQLITE_CONSTRAINT_PRIMARYKEY'),
  rowLocks: false,
  multiRowInsert: 'values',
  least: (a, b) => `min(coalesce(${a}, ${b}), coalesce(${b}, ${a}))`,
  greatest: (a, b) => `max(coalesce(${a}, ${b}), coalesce(${b}, ${a}))`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  rowLocator: 'rowid',
  partitionsByTime: false,
  inValues: (expr, _type, values) => sql`${sql.raw(expr)} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`,
  rowSource: (alias, columns, rows) => {
    const select = columns.map(([name], i) => `value ->> ${i} AS ${name}`).join(', ');
    return sql`(SELECT ${sql.raw(select)} FROM json_each(${JSON.stringify(rows)})) AS ${sql.raw(alias)}`;
  },
};

const postgresDialect: SqlDialect = {
  name: 'postgres',
  placeholder: (index) => `$${index}`,
  jsonString: (expr) => `to_json(${expr})::text`,
  jsonBoolean: (expr) => `(CASE WHEN ${expr} THEN 'true' ELSE 'false' END)`,
  jsonInteger: (expr) => `(${expr})::text`,
  jsonDateTime: (expr) =>
    `('"' || to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"')`,
  // float8's text is the shortest that reads back the same, as JavaScript prints numbers
  jsonNumber: (expr) => `((${expr})::float8)::text`,
  typed: (placeholder, type) => (type === 'uuid' || type === 'text' || type === 'bigint' ? placeholder : `${placeholder}::${type}`),
  inList: (expr, list) => `${expr} = ANY(${list})`,
  listRows: (list, alias) => `unnest(${list}) AS ${alias}(value)`,
  epochSeconds: (expr) => `extract(epoch FROM ${expr})::float8`,
  epochBucket: (expr, step) => `(floor(extract(epoch FROM ${expr}))::bigint - floor(extract(epoch FROM ${expr}))::bigint % ${step})`,
  fromEpochSeconds: (expr) => `to_timestamp(${expr})`,
  ipBetween: (expr, start, end) => `(${expr})::inet BETWEEN (${start})::inet AND (${end})::inet`,
  base64url: (expr) => `rtrim(translate(encode(convert_to(${expr}, 'UTF8'), 'base64'), '+/' || chr(10), '-_'), '=')`,
  finishedTransaction: (txid) => `${txid} < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`,
  orderedListRows: (list, alias) => `unnest(${list}) WITH ORDINALITY AS ${alias}(value, position)`,
  jsonTextRows: (expr, alias) => `json_array_elements_text(${expr}::json) AS ${alias}(value)`,
  bindValue: (type, value) => (value === undefined ? null : type === 'timestamptz' ? canonicalTimestamp(value) : value),
  jsonArray: (element, fromWhere, orderBy) =>
    `(SELECT '[' || string_agg(${element}, ',' ORDER BY ${orderBy}) || ']' FROM ${fromWhere})`,
  batchOf: (columns, types) => {
    const arrays = types.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
    const names = types.map((_, i) => `p${i + 1}`).join(', ');
    // `batch`, not a short alias: a feature's own derived table named like it would hide the parameters (a bands table `b` did)
    return `SELECT batch.i, ${columns} FROM unnest(${arrays}) WITH ORDINALITY AS batch(${names}, i)`;
  },
  types: {
    // byte order, the same order and equality as SQLite's BINARY collation
    text: sql`text collate "C"`,
    uuid: 'uuid',
    boolean: 'boolean',
    timestamp: 'timestamptz',
    integer: 'integer',
    id: 'bigint',
  },
  isUniqueViolation: (error) => hasCode(error, '23505'),
  rowLocks: true,
  multiRowInsert: 'source',
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  differs: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  rowLocator: 'tableoid, ctid',
  partitionsByTime: true,
  inValues: (expr, type, values) => sql`${sql.raw(expr)} = ANY(${postgresArray(values)}::${sql.raw(POSTGRES_ARRAY_TYPES[type])})`,
  rowSource: (alias, columns, rows) => {
    const arrays = columns.map(([, type], i) => sql`${postgresArray(rows.map((row) => row[i]))}::${sql.raw(POSTGRES_ARRAY_TYPES[type])}`);
    return sql`unnest(${sql.join(arrays)}) AS ${sql.raw(alias)}(${sql.raw(columns.map(([name]) => name).join(', '))})`;
  },
};

/** The dialect object for a store. */
export function getDialect(name: DialectName): SqlDialect {
  return name === 'sqlite' ? sqliteDialect : postgresDialect;
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * A text that sorts as PostgreSQL's inet sorts host addresses: `4` and the
 * 8 hex digits of an IPv4 address, `6` and the 32 hex digits of an IPv6 one
 * (`::` expanded, an embedded IPv4 tail as its two groups); null for
 * anything else. SQLite's `ip_order_key` (sqlite.ts), for ipBetween.
 */
export function ipOrderKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const family = isIP(value);
  if (family === 4) return `4${value.split('.').map((o) => Number(o).toString(16).padStart(2, '0')).join('')}`;
  if (family !== 6) return null;
  const [head = '', tail] = value.toLowerCase().split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap(toHexGroups));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0000');
  return `6${[...left, ...zeros, ...right].join('')}`;
}

/** An IPv6 group as 4 hex digits, or an embedded dotted IPv4 address as two. */
function toHexGroups(group: string): string[] {
  if (!group.includes('.')) return [group.padStart(4, '0')];
  const hex = (ipOrderKey(group) ?? '400000000').slice(1);
  return [hex.slice(0, 4), hex.slice(4)];
}
