import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

const SLOT = '\u0000';

/**
 * SQL text made by `build` (a builder shared with the compiled read path,
 * which binds its own placeholders) as a query-builder expression, with
 * `value` bound where `build` put its one placeholder.
 */
export function sqlWithValue<T>(build: (placeholder: string) => string, value: unknown): RawBuilder<T> {
  return sqlWithValues<T>((placeholders) => build(placeholders[0] as string), [value]);
}

/** sqlWithValue() for a builder of several placeholders, each used once: `values[i]` is bound at the i-th. */
export function sqlWithValues<T>(build: (placeholders: readonly string[]) => string, values: readonly unknown[]): RawBuilder<T> {
  const slots = values.map((_, i) => `${SLOT}${i}${SLOT}`);
  const parts = build(slots).split(SLOT);
  // parts alternate text and slot index: text, index, text, index, text
  return sql.join(
    parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part)]}`)),
    sql.raw(''),
  ) as RawBuilder<T>;
}
