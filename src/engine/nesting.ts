// How deep a GraphQL document nests, read from its text before it is parsed:
// graphql-js parses by recursive descent, and a list literal a couple of
// thousand levels deep overflows the stack (a RangeError shown to the client).

/** The deepest nesting of list and input object values a document may hold (literals and default values). */
export const MAX_VALUE_NESTING = 64;

/** How deeply a document nests its selection sets and its values. */
export interface DocumentNesting {
  readonly selections: number;
  readonly values: number;
}

const enum Char {
  Quote = 0x22,
  Hash = 0x23,
  OpenParen = 0x28,
  CloseParen = 0x29,
  OpenBracket = 0x5b,
  Backslash = 0x5c,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  Newline = 0x0a,
  Return = 0x0d,
}

/**
 * The nesting of `query`'s selection sets and of its values (`[`, `(` and
 * an object value's `{`), counted in one pass without recursion and without
 * parsing: brackets inside strings, block strings and comments do not count.
 * A brace opens a value when the innermost open bracket is a value's (an
 * argument list, a list, an object), else a selection set. Stops early once
 * either count passes its limit.
 */
export function measureDocumentNesting(query: string, limits: DocumentNesting): DocumentNesting {
  // one entry per open bracket: true for a value's, false for a selection set's
  const open: boolean[] = [];
  let selections = 0;
  let values = 0;
  let deepestSelections = 0;
  let deepestValues = 0;
  for (let i = 0; i < query.length; i += 1) {
    const c = query.charCodeAt(i);
    if (c === Char.Quote) i = skipString(query, i);
    else if (c === Char.Hash) i = skipComment(query, i);
    else if (c === Char.OpenParen || c === Char.OpenBracket || (c === Char.OpenBrace && open[open.length - 1] === true)) {
      open.push(true);
      values += 1;
      if (values > deepestValues) deepestValues = values;
    } else if (c === Char.OpenBrace) {
      open.push(false);
      selections += 1;
      if (selections > deepestSelections) deepestSelections = selections;
    } else if (c === Char.CloseParen || c === Char.CloseBracket || c === Char.CloseBrace) {
      const wasValue = open.pop();
      if (wasValue === true) values -= 1;
      else if (wasValue === false) selections -= 1;
    }
    if (deepestSelections > limits.selections || deepestValues > limits.values) break;
  }
  return { selections: deepestSelections, values: deepestValues };
}

/** The index of the last character of the string (or block string) opened at `start`. */
function skipString(query: string, start: number): number {
  if (query.startsWith('"""', start)) {
    let i = query.indexOf('"""', start + 3);
    while (i !== -1 && query.charCodeAt(i - 1) === Char.Backslash) i = query.indexOf('"""', i + 3);
    return i === -1 ? query.length : i + 2;
  }
  for (let i = start + 1; i < query.length; i += 1) {
    const c = query.charCodeAt(i);
    if (c === Char.Backslash) i += 1;
    else if (c === Char.Quote || c === Char.Newline || c === Char.Return) return i;
  }
  return query.length;
}

/** The index of the last character of the comment opened at `start`. */
function skipComment(query: string, start: number): number {
  for (let i = start + 1; i < query.length; i += 1) {
    const c = query.charCodeAt(i);
    if (c === Char.Newline || c === Char.Return) return i;
  }
  return query.length;
}
