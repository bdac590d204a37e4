import type { ParamType, SqlDialect } from '../../db/dialect.js';
import type { ReplicaRead, Row, Store } from '../../db/store.js';
import { invariant } from '../../errors.js';
import type { FieldMapping, ListMapping, ReadModel, RootDefinition, RootRead, ScalarType, Selection, SelectedField, SqlContext } from './read.model.js';

export type { Selection } from './read.model.js';

/**
 * A compiled read: one SQL statement answering every root field of a document,
 * plus the API key check. Only the parameter values change between requests.
 */
export interface CompiledRead {
  readonly text: string;
  /** How each parameter is filled: the key id, the company id, or root field i's argument. */
  readonly slots: readonly ParamSlot[];
  /**
   * The same read for several callers at once, on stores that coalesce
   * concurrent reads (PostgreSQL): each parameter becomes an array of the
   * callers' values, and each caller gets its own row (see Store.selectRow).
   */
  readonly batchText?: string;
}

export type ParamSlot =
  | { readonly kind: 'key' }
  | { readonly kind: 'company' }
  | { readonly kind: 'arg'; readonly root: number }
  | { readonly kind: 'onlineSince' };

/** The values a compiled read needs at run time. */
export interface ReadParams {
  readonly keyId: number | null;
  readonly companyId: number;
  /** The one argument of each root field, in root order. */
  readonly args: readonly unknown[];
  /**
   * For reads that show online state: the time (ISO 8601 UTC) from which
   * reports count as online; asked once, and only by reads that need it.
   */
  readonly onlineSince: () => string;
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
  readonly slots: ParamSlot[] = [];

  constructor(
    private readonly dialect: SqlDialect,
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
    return this.param({ kind: 'onlineSince' });
  }

  root(read: RootRead, index: number): string {
    const root = rootOf(this.model, read);
    const t = this.alias();
    // parameters are numbered in the order they appear in the text (SQLite's are positional): the columns come first
    const columns = root.list === undefined ? this.object(read.selection, t) : this.list(root.list, read.selection, t);
    const where = root.where(t, this.param({ kind: 'arg', root: index }), this.param({ kind: 'company' }));
    return `(SELECT ${columns} FROM ${root.table} ${t} WHERE ${where})`;
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
        return `coalesce((SELECT ${this.object(field.selection, child)} FROM ${mapping.table} ${child} WHERE ${mapping.join(child, t, this)}), 'null')`;
      }
      case 'list':
        invariant(field.selection !== undefined, 'read-list-selection');
        return this.list(mapping as ListMapping, field.selection, t);
    }
  }

  list(mapping: ListMapping, selection: Selection, parent: string): string {
    const child = this.alias();
    const array = this.dialect.jsonArray(
      this.object(selection, child),
      `${mapping.table} ${child} WHERE ${mapping.join(child, parent, this)}`,
      mapping.orderBy?.(child) ?? `${child}.id`,
    );
    return `coalesce(${array}, '[]')`;
  }

  private scalar(type: ScalarType, column: string, nullable: boolean): string {
    const d = this.dialect;
    const json =
      type === 'string'
        ? d.jsonString(column)
        : type === 'boolean'
          ? d.jsonBoolean(column)
          : type === 'integer'
            ? d.jsonInteger(column)
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
  const batchCompiler = new ReadCompiler(dialect, model, (index) => `b.p${index}`);
  const batchColumns = selectList(batchCompiler, reads, withKeyCheck);
  const types = slots.map((slot): ParamType =>
    slot.kind === 'arg' ? rootOf(model, reads[slot.root] as RootRead).argument.type : slot.kind === 'onlineSince' ? 'timestamptz' : 'bigint',
  );
  return { text, slots, batchText: dialect.batchOf(batchColumns, types) };
}

/** The columns of a compiled read: the key check as `k`, then root field i's JSON as `r<i>`. */
function selectList(compiler: ReadCompiler, reads: readonly RootRead[], withKeyCheck: boolean): string {
  const columns: string[] = [];
  if (withKeyCheck) {
    columns.push(keyColumn(compiler.param({ kind: 'key' })));
  } else {
    columns.push('1 AS k');
  }
  reads.forEach((read, index) => columns.push(`${compiler.root(read, index)} AS r${index}`));
  return columns.join(', ');
}

/** The key check column `k`: 1 while the key `key` (a parameter reference) is not revoked. */
function keyColumn(key: string): string {
  return `(SELECT CASE WHEN revoked_at IS NULL THEN 1 ELSE 0 END FROM api_keys WHERE id = ${key}) AS k`;
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
  const text = `SELECT ${keyColumn(dialect.placeholder(1))}`;
  return dialect.batchOf === undefined ? { text } : { text, batchText: dialect.batchOf(keyColumn('b.p1'), ['bigint']) };
}

/**
 * Runs a compiled read: one statement, whatever the size of the answer, cancelled at `deadline` if still running.
 * With `keyCheck`, the read may run on the store's read replica; the key's state then comes from `keyCheck`,
 * run on the primary at the same time, so a key revoked a moment ago is refused however far the replica lags.
 */
export async function runRead(store: Store, compiled: CompiledRead, params: ReadParams, deadline?: number, keyCheck?: CompiledKeyCheck): Promise<ReadResult> {
  let onlineSince: string | undefined;
  const values = compiled.slots.map((slot) =>
    slot.kind === 'key'
      ? params.keyId
      : slot.kind === 'company'
        ? params.companyId
        : slot.kind === 'arg'
          ? params.args[slot.root]
          : (onlineSince ??= params.onlineSince()),
  );
  const replica = keyCheck === undefined ? undefined : replicaRead(compiled, params, keyCheck);
  const row: Row | undefined = await store.selectRow(compiled.text, values, { deadline, batchText: compiled.batchText, replica });
  invariant(row !== undefined, 'read-no-row');
  const roots: (string | null)[] = [];
  for (let i = 0; ; i++) {
    const key = `r${i}`;
    if (!(key in row)) break;
    roots.push((row[key] as string | null) ?? null);
  }
  return { keyActive: Number(row.k) === 1, roots };
}

/** What lets a read run on the replica: the key check, on the primary, when the read checks a key. */
function replicaRead(compiled: CompiledRead, params: ReadParams, keyCheck: CompiledKeyCheck): ReplicaRead {
  if (params.keyId === null || !compiled.slots.some((slot) => slot.kind === 'key')) return {};
  return { fresh: { text: keyCheck.text, batchText: keyCheck.batchText, params: [params.keyId] } };
}
