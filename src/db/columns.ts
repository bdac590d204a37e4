/** A boolean column: true/false on PostgreSQL, 1/0 on SQLite. */
export type BoolColumn = boolean | number;
