import { isValidKeyColumn, keyValidSql } from '../kernel/key-check.js';
import { isListParam } from '../db/dialect.js';
import type { ParamType, SqlDialect } from '../db/dialect.js';
import type { ReplicaRead, Row, Store } from '../db/store.js';
import { invariant } from '../kernel/errors.js';
import type {
  ArgumentValues,
  FieldMapping,
  ListMapping,
  ReadModel,
  RootArgument,
  RootDefinition,
  RootRead,
  ScalarType,
  Selection,
  SelectedField,
  SqlContext,
} from './read.model.js';

export type { Selection } from './read.model.js';

/**
 * A compiled read: one SQL statement answering every root field of a document,
 * plus the API key check. Only the parameter values change between requests.
 */
export interface CompiledRead {
  readonly text: string;
  /** How each parameter is filled: the key id, the company id, an argument of root field i, a value computed from them. */
  readonly slots: readonly ParamSlot[];
  /**
   * The same read for several callers at once, on stores that coalesce
   * concurrent reads (PostgreSQL): each parameter becomes an array of the
   * callers' values, and each caller gets its own row (see Store.selectRow).
   * None when a parameter is a list (PostgreSQL has no array of arrays of
   * different lengths): such a read always runs on its own.
   */
  readonly batchText?: string;
}

/** One parameter of a compiled read: where its value comes from, and its SQL type. */
export type ParamSlot = { readonly type: ParamType } & (
  | { readonly kind: 'key' | 'company' | 'onlineSince' | 'now' }
  | { readonly kind: 'arg'; readonly root: number; readonly path: string; readonly fallback?: unknown }
  | { readonly kind: 'value'; readonly root: number; readonly compute: (args: ArgumentValues, now: Date) => unknown }
);

/** The values a compiled read needs at run time. */
export interface ReadParams {
  readonly keyId: number | null;
  readonly companyId: number;
  /** The argument values of each root field, in root order (SDL defaults applied). */
  readonly args: readonly ArgumentValues[];
  /**
   * For reads that show online state: the time (ISO 8601 UTC) from which
   * reports count as online; asked once, and only by reads that need it.
   */
  readonly onlineSince: () => string;
  /** The time of the request, asked once, and only by reads that need it. */
  readonly now: () => Date;
}

/** The result of a compiled read: whether the key is still active, and each root's JSON text (null when absent). */
export interface ReadResult {
  readonly keyActive: boolean;
  readonly roots: readonly (string | null)[];
}

/**
 * Builds SQL text for one dialect; aliases and parameters are numbered as it
 * goes. `reference` writes parameter n (1-based) into the text: a placeholder,
 * or a column of the batch form's parameter rows.
 */
class ReadCompiler implements SqlContext {
  private aliasCount = 0;
  /** The root being compiled: the one whose arguments `arg` and `value` read. */
  private current: { readonly index: number; readonly root: RootDefinition; readonly given?: ReadonlySet<string> } | undefined;
  readonly slots: ParamSlot[] = [];

  constructor(
    readonly dialect: SqlDialect,
    private readonly model: ReadModel,
    private readonly reference: (index: number) => string = (index) => dialect.placeholder(index),
  ) {}

  param(slot: ParamSlot): string {
    this.slots.push(slot);
    return this.reference(this.slots.length);
  }

  alias(): string {
    return `t${this.aliasCount++}`;
  }

  onlineSince(): string {
    return this.param({ kind: 'onlineSince', type: 'timestamptz' });
  }

  mayBeGiven(name: string): boolean {
    const given = this.currentRoot().given;
    return given === undefined || given.has(name);
  }

  company(): string {
    return this.param({ kind: 'company', type: 'bigint' });
  }

  now(): string {
    return this.dialect.typed(this.param({ kind: 'now', type: 'timestamptz' }), 'timestamptz');
  }

  arg(path: string): string {
    const current = this.currentRoot();
    const argument = argumentAt(current.root.arguments, path);
    invariant(argument !== undefined, `read-unknown-argument:${path}`);
    const type = paramTypeOf(argument);
    const slot: ParamSlot = { kind: 'arg', root: current.index, path, type, ...(argument.default === undefined ? {} : { fallback: argument.default }) };
    return this.dialect.typed(this.param(slot), type);
  }

  value(type: ParamType, compute: (args: ArgumentValues, now: Date) => unknown): string {
    return this.dialect.typed(this.param({ kind: 'value', root: this.currentRoot().index, type, compute }), type);
  }

  private currentRoot(): { readonly index: number; readonly root: RootDefinition; readonly given?: ReadonlySet<string> } {
    invariant(this.current !== undefined, 'read-argument-outside-root');
    return this.current;
  }

  root(read: RootRead, index: number): string {
    const root = rootOf(this.model, read);
    this.current = { index, root, ...(read.argumentsGiven === undefined ? {} : { given: read.argumentsGiven }) };
    try {
      if (root.kind === 'value') return root.json(this, read.selection);
      const t = this.alias();
      // parameters are numbered in the order they appear in the text (SQLite's are positional): the columns come first
      const columns = root.list === undefined ? this.object(read.selection, t) : this.list(root.list, read.selection, t);
      return `(SELECT ${columns} FROM ${root.table} ${t} WHERE ${root.where(t, this)})`;
    } finally {
      this.current = undefined;
    }
  }

  /** JSON object text of `selection` for the row aliased `t`. */
  object(selection: Selection, t: string): string {
    const model = this.model.types[selection.typeName];
    invariant(model !== undefined, 'read-model-type');
    const parts: string[] = [];
    let literal = '{';
    for (const field of selection.fields) {
      literal += `${literal === '{' ? '' : ','}"${field.key}":`;
      if (field.name === '__typename') {
        literal += `"${selection.typeName}"`;
        continue;
      }
      const mapping = model[field.name];
      invariant(mapping !== undefined, `read-model-field:${selection.typeName}.${field.name}`);
      parts.push(sqlLiteral(literal), this.field(mapping, field, t));
      literal = '';
    }
    parts.push(sqlLiteral(`${literal}}`));
    return parts.join(' || ');
  }

  private field(mapping: FieldMapping, field: SelectedField, t: string): string {
    switch (mapping.kind) {
      case 'scalar':
        return this.scalar(mapping.type, `${t}.${mapping.column}`, mapping.nullable === true);
      case 'computed':
        return this.scalar(mapping.type, mapping.sql(t, this), mapping.nullable === true);
      case 'embedded':
        invariant(field.selection !== undefined, 'read-embedded-selection');
        return `(CASE WHEN ${mapping.nullWhen(t)} THEN 'null' ELSE ${this.object(field.selection, t)} END)`;
      case 'object': {
        invariant(field.selection !== undefined, 'read-object-selection');
        const child = this.alias();
        const object = this.object(field.selection, child);
        return `coalesce((SELECT ${object} FROM ${this.table(mapping.table, t)} ${child} WHERE ${mapping.join(child, t, this)}), 'null')`;
      }
      case 'list':
        invariant(field.selection !== undefined, 'read-list-selection');
        return this.list(mapping as ListMapping, field.selection, t);
    }
  }

  list(mapping: ListMapping, selection: Selection, parent: string): string {
    const child = this.alias();
    // in the text the element comes first, then the order, then the rows: build them in that order
    const element = this.object(selection, child);
    const orderBy = mapping.orderBy?.(child) ?? `${child}.id`;
    const array = this.dialect.jsonArray(element, `${this.table(mapping.table, parent)} ${child} WHERE ${mapping.join(child, parent, this)}`, orderBy);
    return `coalesce(${array}, '[]')`;
  }

  private table(table: string | ((context: SqlContext, parent: string) => string), parent: string): string {
    return typeof table === 'string' ? table : table(this, parent);
  }

  private scalar(type: ScalarType, column: string, nullable: boolean): string {
    const d = this.dialect;
    // a NULL boolean would read as false in jsonBoolean's CASE; a simple CASE evaluates the expression (and its parameters) once
    if (type === 'boolean' && nullable) return `(CASE ${column} WHEN TRUE THEN 'true' WHEN FALSE THEN 'false' ELSE 'null' END)`;
    const json =
      type === 'json'
        ? column
        : type === 'string'
        ? d.jsonString(column)
        : type === 'boolean'
          ? d.jsonBoolean(column)
          : type === 'integer'
            ? d.jsonInteger(column)
            : type === 'float'
              ? d.jsonNumber(column)
              : d.jsonDateTime(column);
    return nullable ? `coalesce(${json}, 'null')` : json;
  }
}

/** The definition of a read's root: a Query field's, or an internal one. */
function rootOf(model: ReadModel, read: RootRead): RootDefinition {
  const name = read.root;
  const root = Object.hasOwn(model.roots, name) ? model.roots[name] : Object.hasOwn(model.internalRoots, name) ? model.internalRoots[name] : undefined;
  invariant(root !== undefined, `read-root:${name}`);
  return root;
}

/** A SQL string literal; the text never holds a quote (keys are GraphQL names). */
function sqlLiteral(value: string): string {
  invariant(!value.includes("'"), 'read-literal-quote');
  return `'${value}'`;
}

/**
 * Compiles the root reads of one document into one statement. The first
 * column says whether the API key is still active, so revocation needs no
 * cache invalidation: it is read in the same statement as the data.
 */
export function compileRead(dialect: SqlDialect, model: ReadModel, reads: readonly RootRead[], withKeyCheck: boolean): CompiledRead {
  const compiler = new ReadCompiler(dialect, model);
  const text = `SELECT ${selectList(compiler, reads, withKeyCheck)}`;
  const { slots } = compiler;
  if (dialect.batchOf === undefined) return { text, slots };
  // the same select list, each parameter read from the row of one caller
  const batchCompiler = new ReadCompiler(dialect, model, (index) => `batch.p${index}`);
  const batchColumns = selectList(batchCompiler, reads, withKeyCheck);
  const types = slots.map((slot) => slot.type);
  if (types.some(isListParam)) return { text, slots };
  return { text, slots, batchText: dialect.batchOf(batchColumns, types) };
}

/** The columns of a compiled read: the key check as `k`, then root field i's JSON as `r<i>`. */
function selectList(compiler: ReadCompiler, reads: readonly RootRead[], withKeyCheck: boolean): string {
  const columns: string[] = [];
  if (withKeyCheck) {
    // the time first: it comes first in the text, and SQLite's placeholders bind in order
    const now = compiler.now();
    columns.push(keyColumn(compiler.param({ kind: 'key', type: 'bigint' }), now));
  } else {
    columns.push('1 AS k');
  }
  reads.forEach((read, index) => columns.push(`${compiler.root(read, index)} AS r${index}`));
  return columns.join(', ');
}

/** The key check column `k`: 1 while the key `key` (a parameter reference) is valid at `now` (kernel/key-check.ts). */
function keyColumn(key: string, now: string): string {
  return `${keyValidSql(key, now)} AS k`;
}

/**
 * The key check of a compiled read on its own, with a batch form like the
 * reads': what runs on the primary while a read runs on the replica, whose
 * copy of api_keys may be behind (see runRead's `keyCheck`).
 */
export interface CompiledKeyCheck {
  readonly text: string;
  readonly batchText?: string;
}

/** Compiles the key check alone (CompiledKeyCheck). */
export function compileKeyCheck(dialect: SqlDialect): CompiledKeyCheck {
  // parameters in the order of the text (the time, then the key), as SQLite binds them
  const text = `SELECT ${keyColumn(dialect.placeholder(2), dialect.typed(dialect.placeholder(1), 'timestamptz'))}`;
  return dialect.batchOf === undefined ? { text } : { text, batchText: dialect.batchOf(keyColumn('batch.p2', 'batch.p1'), ['timestamptz', 'bigint']) };
}

/**
 * Runs a compiled read: one statement, whatever the size of the answer, cancelled at `deadline` if still running.
 * With `keyCheck`, the read may run on the store's read replica; the key's state then comes from `keyCheck`,
 * run on the primary at the same time, so a key revoked a moment ago is refused however far the replica lags.
 */
export async function runRead(store: Store, compiled: CompiledRead, params: ReadParams, deadline?: number, keyCheck?: CompiledKeyCheck): Promise<ReadResult> {
  const values = slotValues(store.dialect, compiled.slots, params);
  const replica = keyCheck === undefined ? undefined : replicaRead(compiled, params, keyCheck);
  const row: Row | undefined = await store.selectRow(compiled.text, values, { deadline, batchText: compiled.batchText, replica });
  invariant(row !== undefined, 'read-no-row');
  const roots: (string | null)[] = [];
  for (let i = 0; ; i++) {
    const key = `r${i}`;
    if (!(key in row)) break;
    roots.push((row[key] as string | null) ?? null);
  }
  return { keyActive: isValidKeyColumn(row.k), roots };
}

/** What lets a read run on the replica: the key check, on the primary, when the read checks a key. */
function replicaRead(compiled: CompiledRead, params: ReadParams, keyCheck: CompiledKeyCheck): ReplicaRead {
  if (params.keyId === null || !compiled.slots.some((slot) => slot.kind === 'key')) return {};
  return { fresh: { text: keyCheck.text, batchText: keyCheck.batchText, params: [params.now().toISOString(), params.keyId] } };
}

/** The values of a read's parameters, in slot order, as the store binds them. */
function slotValues(dialect: SqlDialect, slots: readonly ParamSlot[], params: ReadParams): unknown[] {
  let onlineSince: string | undefined;
  let now: Date | undefined;
  return slots.map((slot) => {
    switch (slot.kind) {
      case 'key':
        return params.keyId;
      case 'company':
        return params.companyId;
      case 'onlineSince':
        return (onlineSince ??= params.onlineSince());
      case 'now':
        return (now ??= params.now()).toISOString();
      case 'arg':
        return dialect.bindValue(slot.type, valueAt(params.args[slot.root] ?? {}, slot.path) ?? slot.fallback ?? null);
      case 'value':
        return dialect.bindValue(slot.type, slot.compute(params.args[slot.root] ?? {}, (now ??= params.now())));
    }
  });
}

/** The value at a dotted path (`filter.stepSeconds`) of a root's arguments; undefined when absent or null. */
export function valueAt(args: ArgumentValues, path: string): unknown {
  let value: unknown = args;
  for (const name of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value ?? undefined;
}

/** The declared argument at a dotted path, through input objects. */
export function argumentAt(args: readonly RootArgument[], path: string): RootArgument | undefined {
  const [name, ...rest] = path.split('.');
  const argument = args.find((a) => a.name === name);
  if (argument === undefined || rest.length === 0) return argument;
  return argument.type === 'input' ? argumentAt(argument.fields, rest.join('.')) : undefined;
}

/** The parameter type of an argument's value. */
function paramTypeOf(argument: RootArgument): ParamType {
  // an input object is read field by field (`filter.stepSeconds`), never whole
  invariant(argument.type !== 'input', `read-input-object-as-parameter:${argument.name}`);
  switch (argument.type) {
    case 'uuid':
      return 'uuid';
    case 'text':
      return 'text';
    case 'int':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'timestamptz';
    case 'uuidList':
      return 'uuid[]';
    case 'textList':
      return 'text[]';
  }
}
