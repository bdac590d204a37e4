import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

const SLOT = '\u0000';

/**
 * SQL text made by `build` (a builder shared with the compiled read path,
 * which binds its own placeholders) as a query-builder expression, with
 * `value` bound where `build` put its one placeholder.
 */
export function sqlWithValue<T>(build: (placeholder: string) => string, value: unknown): RawBuilder<T> {
  const [head = '', tail = ''] = build(SLOT).split(SLOT);
  return sql<T>`${sql.raw(head)}${value}${sql.raw(tail)}`;
}
