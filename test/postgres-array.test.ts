import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { postgresArray } from '../src/db/postgres-array.js';
import { withClient } from './helpers/postgres.js';

const postgresUrl = inject('postgresUrl');

/** Each array type ingest binds, with values that need every rule: NULL, quotes, backslashes, braces, commas, spaces, "NULL" as text. */
const CASES: [type: string, values: unknown[]][] = [
  ['bigint[]', [1, null, -9_007_199_254_740_991, 0, undefined, 9_007_199_254_740_991n * 4n]],
  ['integer[]', [7, null, -2_147_483_648]],
  ['float8[]', [0.1, -2.5e-7, 1e300, null, 433.3, Number.NaN, Number.POSITIVE_INFINITY]],
  ['text[]', ['plain', '', 'NULL', 'null', 'a "quoted" word', 'back\\slash', 'trailing\\', '{braces},commas', ' spaced ', 'ünïcødé 📡', null, '\\"', 'tab\there']],
  ['boolean[]', [true, false, null]],
  ['timestamptz[]', ['2026-11-29T12:00:00.000Z', null, '2026-11-29 13:00:00+01']],
  ['uuid[]', ['0b7c7f2e-6f1a-4d8e-9a51-3c2f0e4b8a11', null]],
  ['text[]', []],
];

describe.skipIf(!postgresUrl)('postgresArray (rowSource and inValues on PostgreSQL)', () => {
  it('reads back in PostgreSQL exactly as the array node-postgres would send', async () => {
    await withClient(postgresUrl as string, async (client) => {
      for (const [type, values] of CASES) {
        const literal = postgresArray(values);
        expect(typeof literal, type).toBe('string');
        const { rows } = await client.query<{ same: boolean; ours: string; theirs: string }>(
          `SELECT $1::${type} IS NOT DISTINCT FROM $2::${type} AS same, $1::${type}::text AS ours, $2::${type}::text AS theirs`,
          [literal, values],
        );
        expect(rows[0]?.ours, type).toBe(rows[0]?.theirs);
        expect(rows[0]?.same, type).toBe(true);
      }
    });
  });

  it('leaves an array with anything but text, numbers, booleans and nulls to node-postgres', () => {
    const values = [new Date('2026-11-29T12:00:00Z'), null];
    expect(postgresArray(values)).toBe(values);
    expect(postgresArray([{ a: 1 }])).toEqual([{ a: 1 }]);
  });
});
