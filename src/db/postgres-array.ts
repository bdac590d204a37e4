/**
 * A PostgreSQL array literal of `values` (`{1,NULL,3}`, `{"a","b \"c\""}`),
 * as node-postgres writes a JavaScript array parameter, for the arrays of
 * ingest's rowSource and inValues: numbers, bigints and booleans as their
 * text, strings quoted (a backslash or a double quote escaped), null and
 * undefined as NULL. node-postgres builds each element through two regular
 * expression replaces and a type dispatch, 17% of a PostgreSQL server's CPU
 * while a fleet reports (docs/benchmarks.md, "Arrays as text"); here an
 * element without a quote or backslash is only wrapped in quotes. Anything
 * else (a Date, a Buffer, an object, a nested array) returns the array
 * itself, which node-postgres then serializes as before.
 */
export function postgresArray(values: readonly unknown[]): string | readonly unknown[] {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ',';
    const value = values[i];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'string') text += quoted(value);
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') text += String(value);
    else return values;
  }
  return `${text}}`;
}

/** A string as an array element: in double quotes, a backslash or double quote inside escaped with a backslash. */
function quoted(value: string): string {
  return value.includes('"') || value.includes('\\') ? `"${value.replace(/[\\"]/g, '\\$&')}"` : `"${value}"`;
}
