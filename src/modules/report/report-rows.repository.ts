import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { RowColumn, SqlDialect } from '../../db/dialect.js';
import type { Database } from '../../db/tables.js';

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

  return {
    source,

    /**
     * INSERT INTO `table` the rows, then `tail` (ON CONFLICT ..., RETURNING ...);
     * returns the rows RETURNING gives. No statement for no rows.
     */
    async insert<R = unknown>(table: keyof Database, columns: readonly RowColumn[], rows: readonly RowValues[], tail: RawBuilder<unknown> = sql``): Promise<R[]> {
      if (rows.length === 0) return [];
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
