import { CompiledQuery, sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { RowColumn, SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/tables.js';

/**
 * The row counts of the 'values' form's statements, largest first: a batch
 * of n rows takes a few of each, so a table's INSERT has one of five texts
 * (prepared once each) and at most 256 rows of 14 columns of parameters,
 * far below SQLite's 32,766.
 */
const VALUES_CHUNKS = [256, 64, 16, 4, 1] as const;

/** A row to write: column name to value (columns a statement does not name are ignored). */
export type RowValues = Readonly<Record<string, unknown>>;

/**
 * Multi-row writes of ingest: each is one statement of one text whatever the
 * number of rows, selecting from the dialect's rowSource (see SqlDialect).
 */
export function createRowWriter(db: Kysely<Database>, dialect: SqlDialect) {
  /** The relation `alias` of these rows, with the values of `columns` taken by name. */
  const source = (alias: string, columns: readonly RowColumn[], rows: readonly RowValues[]): RawBuilder<unknown> =>
    dialect.rowSource(
      alias,
      columns,
      rows.map((row) => columns.map(([name]) => row[name])),
    );

  /** The 'values' form of insert: positional placeholders, in chunks of VALUES_CHUNKS sizes. */
  async function insertValues<R>(table: keyof Database, columns: readonly RowColumn[], rows: readonly RowValues[], tail: RawBuilder<unknown>): Promise<R[]> {
    const compiledTail = tail.compile(db);
    const head = `INSERT INTO "${table}" (${columns.map(([name]) => name).join(', ')}) VALUES `;
    const row = `(${columns.map(() => '?').join(', ')})`;
    const out: R[] = [];
    let at = 0;
    for (const size of VALUES_CHUNKS) {
      if (rows.length - at < size) continue;
      const text = `${head}${Array.from({ length: size }, () => row).join(', ')} ${compiledTail.sql}`;
      while (rows.length - at >= size) {
        const parameters: unknown[] = [];
        for (const values of rows.slice(at, at + size)) for (const [name] of columns) parameters.push(values[name] ?? null);
        const result = await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters, ...compiledTail.parameters]));
        out.push(...result.rows);
        at += size;
      }
    }
    return out;
  }

  return {
    source,

    /**
     * INSERT INTO `table` the rows, then `tail` (ON CONFLICT ..., RETURNING ...);
     * returns the rows RETURNING gives. No statement for no rows.
     */
    async insert<R = unknown>(table: keyof Database, columns: readonly RowColumn[], rows: readonly RowValues[], tail: RawBuilder<unknown> = sql``): Promise<R[]> {
      if (rows.length === 0) return [];
      if (dialect.multiRowInsert === 'values') return insertValues<R>(table, columns, rows, tail);
      const names = sql.raw(columns.map(([name]) => name).join(', '));
      // WHERE true: SQLite would read ON CONFLICT's ON as a join of the SELECT
      const result = await sql<R>`INSERT INTO ${sql.table(table)} (${names}) SELECT ${names} FROM ${source('r', columns, rows)} WHERE true ${tail}`.execute(db);
      return result.rows;
    },
  };
}

export type RowWriter = ReturnType<typeof createRowWriter>;

/** `column = excluded.column, ...`: an upsert's SET that takes the new row's values. */
export function takeExcluded(columns: readonly string[]): RawBuilder<unknown> {
  return sql.raw(columns.map((c) => `${c} = excluded.${c}`).join(', '));
}
