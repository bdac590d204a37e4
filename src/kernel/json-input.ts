// Untrusted JSON: how deep it may nest and which keys it may hold. Every JSON
// input (request bodies, import files, free-form report details) goes through
// these before anything recurses over it: V8's JSON.parse is iterative, but
// JSON.stringify, validators and GraphQL's coercion recurse, and a value a few
// thousand levels deep overflows the stack (a RangeError, a 500, a lost batch).

/** The deepest nesting of arrays and objects a JSON input may have as a whole. */
export const MAX_JSON_NESTING = 512;

/** The deepest nesting of a free-form value inside an input (a report event's `details`). */
export const MAX_FREE_FORM_NESTING = 32;

/**
 * How deep `text` nests arrays and objects, counted without parsing it and
 * without recursion, stopping once `limit` is passed (the count is then
 * `limit + 1`). Brackets inside strings do not count; the text need not be
 * valid JSON.
 */
export function jsonTextNesting(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

/** The index of the quote that closes the string opened at `open` (the text's end when it never closes). */
function stringEnd(text: string, open: number): number {
  let i = text.indexOf('"', open + 1);
  while (i !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return i;
    i = text.indexOf('"', i + 1);
  }
  return text.length;
}

/** Why a JSON text was not taken: too deep, or not JSON at all. */
export class JsonInputError extends Error {
  constructor(
    readonly reason: 'too-deep' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Parses untrusted JSON text: a JsonInputError when it nests deeper than
 * `maxNesting` (checked first, without recursion) or is not JSON. Keys such
 * as `__proto__` come back as the value's own data properties, never as its
 * prototype (JSON.parse defines, it does not assign); callers that copy
 * objects check `findPrototypeKey` before they do.
 */
export function parseJsonText(text: string, maxNesting = MAX_JSON_NESTING): unknown {
  if (text.length > maxNesting * 2 && jsonTextNesting(text, maxNesting) > maxNesting) {
    throw new JsonInputError('too-deep', `it nests arrays and objects deeper than ${maxNesting} levels`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new JsonInputError('invalid', (error as Error).message);
  }
}

/** A key of a parsed JSON value that could reach an object's prototype if the value were copied or merged. */
export interface PrototypeKey {
  /** Where it is, from the value's root: `variables.filter` or `reports[3].events[0].details`. */
  readonly path: string;
  /** `__proto__`, or `constructor` (which holds a `prototype`). */
  readonly key: string;
}

const MAY_HOLD_PROTOTYPE_KEY = /__proto__|constructor|\\u/;

/**
 * The first key of `value` that names a prototype, as secure-json-parse
 * refuses them: `__proto__`, or `constructor` whose value is an object with
 * a `prototype` key. Walks without recursion, so any depth is safe. `root` is
 * the path of `value` itself. Pass the value's JSON text as `text` when it is
 * at hand: text that cannot spell such a key is answered without a walk.
 */
export function findPrototypeKey(value: unknown, root = '', text?: string): PrototypeKey | undefined {
  if (text !== undefined && !MAY_HOLD_PROTOTYPE_KEY.test(text)) return undefined;
  // a walk without paths first (the common answer is "none"), then one that names the place
  if (!holdsPrototypeKey(value)) return undefined;
  return locatePrototypeKey(value, root);
}

function isPrototypeKey(key: string, child: unknown): boolean {
  return key === '__proto__' || (key === 'constructor' && isObjectWithPrototype(child));
}

function holdsPrototypeKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const child of current) if (typeof child === 'object' && child !== null) pending.push(child);
      continue;
    }
    for (const key in current) {
      const child = (current as Record<string, unknown>)[key];
      if (isPrototypeKey(key, child)) return true;
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return false;
}

function locatePrototypeKey(value: unknown, root: string): PrototypeKey | undefined {
  const pending: Array<{ readonly value: unknown; readonly path: string }> = [{ value, path: root }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) pending.push({ value: current[i], path: `${next.path}[${i}]` });
      continue;
    }
    const keys = Object.keys(current);
    for (const key of keys) {
      if (isPrototypeKey(key, (current as Record<string, unknown>)[key])) return { path: next.path, key };
    }
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      pending.push({ value: (current as Record<string, unknown>)[key], path: joinPath(next.path, key) });
    }
  }
  return undefined;
}

function isObjectWithPrototype(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, 'prototype');
}

/** `a.b`, or `a["b c"]` for a key that is not an identifier. */
export function joinPath(path: string, key: string): string {
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * How deep `value` nests arrays and objects (a scalar is 0), counted without
 * recursion and stopping once `limit` is passed (the count is then `limit + 1`).
 */
export function jsonValueNesting(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (typeof current !== 'object' || current === null) continue;
    const depth = next.depth + 1;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return deepest;
}

/** The message that refuses a prototype key, naming where it is. */
export function prototypeKeyMessage(found: PrototypeKey): string {
  const where = found.path === '' ? 'at the top level' : `in ${found.path}`;
  return `The key "${found.key}" ${where} is refused: keys that name an object's prototype are not accepted; rename it.`;
}
