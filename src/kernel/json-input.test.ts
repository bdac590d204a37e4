import { describe, expect, it } from 'vitest';
import { JsonInputError, findPrototypeKey, jsonTextNesting, jsonValueNesting, parseJsonText } from './json-input.js';

const deepText = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonTextNesting', () => {
  it('counts arrays and objects, not brackets inside strings, escaped quotes included', () => {
    expect(jsonTextNesting('1', 10)).toBe(0);
    expect(jsonTextNesting('{"a":[{"b":[]}]}', 10)).toBe(4);
    expect(jsonTextNesting('["[[[[", "\\"[[[[", "\\\\", [1]]', 10)).toBe(2);
  });

  it('stops once past the limit, at any depth, without recursion', () => {
    expect(jsonTextNesting(deepText(1_000_000), 512)).toBe(513);
  });
});

describe('parseJsonText', () => {
  it('refuses text nested deeper than the limit before parsing, and invalid text, each with its reason', () => {
    expect(parseJsonText(deepText(512))).toBeInstanceOf(Array);
    expect(() => parseJsonText(deepText(513))).toThrow(new JsonInputError('too-deep', 'it nests arrays and objects deeper than 512 levels'));
    expect(() => parseJsonText('{')).toThrow(JsonInputError);
  });

  it('keeps a "__proto__" key as data, never as the prototype', () => {
    const value = parseJsonText('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.polluted).toBeUndefined();
  });
});

describe('findPrototypeKey', () => {
  it('names the first prototype key and the path of the object holding it', () => {
    expect(findPrototypeKey(JSON.parse('{"a":[1,{"b":{"__proto__":{}}}]}'), '$')).toEqual({ path: '$.a[1].b', key: '__proto__' });
    expect(findPrototypeKey(JSON.parse('{"x y":{"constructor":{"prototype":{}}}}'))).toEqual({ path: '["x y"]', key: 'constructor' });
  });

  it('passes "constructor" without a prototype under it, and text that cannot spell such a key', () => {
    expect(findPrototypeKey({ constructor: 'a name', nested: { constructor: { name: 'x' } } })).toBeUndefined();
    const value = JSON.parse('{"a":{"__proto__":1}}') as unknown;
    expect(findPrototypeKey(value, '', '{"a":{"__proto__":1}}')).toEqual({ path: 'a', key: '__proto__' });
    expect(findPrototypeKey(value, '', '{"a":1}')).toBeUndefined();
  });
});

describe('jsonValueNesting', () => {
  it('counts the nesting of a parsed value and stops past the limit', () => {
    expect(jsonValueNesting(1, 5)).toBe(0);
    expect(jsonValueNesting({ a: [{}] }, 5)).toBe(3);
    expect(jsonValueNesting(JSON.parse(deepText(100_000)), 32)).toBe(33);
  });
});
