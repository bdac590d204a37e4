import { PostgresDialect, PostgresIntrospector, sql } from 'kysely';
import type { DatabaseIntrospector, DatabaseMetadata, DatabaseMetadataOptions, Kysely, SchemaMetadata, TableMetadata } from 'kysely';

interface ColumnRow {
  table: string;
  schema: string;
  table_type: string;
  column: string;
  type: string;
  type_schema: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
  column_description: string | null;
}

/**
 * The query builder's PostgreSQL dialect, with an introspector that reads the
 * connection's own schema (`current_schema()`) only.
 *
 * The stock introspector lists the tables of every schema in the database and
 * resolves each by name (`pg_get_serial_sequence('schema.table', …)`). When
 * another deployment sharing the database drops its schema while that query
 * runs, the name no longer resolves and the query fails with
 * `schema "…" does not exist`. The migrator introspects on every start, so a
 * netgraph process could fail to start because an unrelated schema was being
 * dropped (the test suite, where every file has a schema of its own, saw it
 * with two files at a time).
 *
 * Within its own schema it resolves nothing by name either, and leaves out
 * partitions: a day partition another process's expiry drops while the query
 * runs made `pg_get_serial_sequence` fail with `relation "…" does not exist`
 * (two processes starting just after midnight UTC, when a day expires). A
 * serial column is one a sequence depends on (pg_depend), or an identity.
 */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schemas: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
    // listing schema names resolves nothing by name, so the stock query is safe
    this.#schemas = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.#schemas.getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      SELECT c.relname AS table, ns.nspname AS schema, c.relkind AS table_type, a.attname AS column,
        typ.typname AS type, dtns.nspname AS type_schema, a.attnotnull AS not_null, a.atthasdef AS has_default,
        a.attidentity <> '' OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class seq ON seq.oid = d.objid
          WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i') AND seq.relkind = 'S' AND d.refobjid = c.oid AND d.refobjsubid = a.attnum) AS auto_incrementing,
        col_description(a.attrelid, a.attnum) AS column_description
      FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
        JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid
        JOIN pg_catalog.pg_type typ ON a.atttypid = typ.oid
        JOIN pg_catalog.pg_namespace dtns ON typ.typnamespace = dtns.oid
      WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'v', 'p') AND NOT c.relispartition AND a.attnum >= 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (table === undefined) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing,
        hasDefaultValue: row.has_default,
        ...(row.column_description === null ? {} : { comment: row.column_description }),
      });
    }
    const all = [...tables.values()];
    return options.withInternalKyselyTables ? all : all.filter((t) => !t.name.startsWith('kysely_'));
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
