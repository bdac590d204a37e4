import { describe, expect, it } from 'vitest';
import { measureDocumentNesting } from './nesting.js';

const LIMITS = { selections: 1000, values: 1000 };

describe('measureDocumentNesting', () => {
  it('tells selection sets from values: argument lists, lists and object values', () => {
    expect(measureDocumentNesting('{ a { b(x: [{ y: [1] }]) { c } } }', LIMITS)).toEqual({ selections: 3, values: 4 });
    expect(measureDocumentNesting('query($v: [[Int]] = [[1]]) @d(if: {a: {b: 1}}) { a }', LIMITS)).toEqual({ selections: 1, values: 3 });
  });

  it('counts nothing inside strings, escaped quotes, block strings and comments', () => {
    const query = '# [[[{{{\n{ a(s: "[[\\"[[", t: """ [[ \\""" [[ """) { b } }';
    expect(measureDocumentNesting(query, LIMITS)).toEqual({ selections: 2, values: 1 });
  });

  it('stops once a count passes its limit', () => {
    expect(measureDocumentNesting(`{ a(x: ${'['.repeat(100_000)}`, { selections: 10, values: 64 })).toEqual({ selections: 1, values: 65 });
  });
});
