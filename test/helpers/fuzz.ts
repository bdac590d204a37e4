import { getNamedType, isObjectType } from 'graphql';
import type { GraphQLObjectType } from 'graphql';
import { createSchema } from '../../src/engine/schema.js';
import { IDS, SERIALS } from './fixture.js';
import type { RawRequest } from './raw-http.js';

import type { Random } from '../../src/tools/demo/random.js';

export { createRandom } from '../../src/tools/demo/random.js';
export type { Random } from '../../src/tools/demo/random.js';

const schema = createSchema();
const queryType = schema.getQueryType() as GraphQLObjectType;

/** Argument values a script might send, a typo, or an attack. */
const ARGUMENT_VALUES = [
  `"${IDS.acmeHq}"`,
  `"${IDS.acmeAp}"`,
  `"${IDS.globexHq}"`,
  `"${SERIALS.acmeAp}"`,
  '"acme"',
  '"globex"',
  '"hq"',
  '""',
  '"ACME"',
  '"not a uuid"',
  '"11111111-1111-4111-8111-11111111111"',
  `"${IDS.acmeHq.toUpperCase()}"`,
  `"acme'; DROP TABLE companies; --"`,
  '"\\u0000"',
  '"\\ud800"',
  '"🛰️ zürich"',
  '"%00%27"',
  '12',
  '-1',
  '1e309',
  '3.14',
  'true',
  'null',
  'ACCESS_POINT',
  '[]',
  '["acme"]',
  '{ a: 1 }',
  '$v',
  '$undefined',
];

function selection(random: Random, type: GraphQLObjectType, depth: number): string {
  const fields = Object.values(type.getFields());
  const parts: string[] = [];
  const count = 1 + random.int(Math.min(fields.length, 6));
  for (let i = 0; i < count; i++) {
    const field = random.pick(fields);
    const alias = random.chance(0.15) ? `${random.pick(['a', 'b', 'x', '_', 'alias_long_name'])}${random.int(9)}: ` : '';
    const directive = random.chance(0.08) ? ` @${random.pick(['skip', 'include', 'deprecated', 'nope'])}(if: ${random.pick(['true', 'false', '$flag', '1'])})` : '';
    const named = getNamedType(field.type);
    const inner = isObjectType(named) && depth < 6 ? ` { ${selection(random, named, depth + 1)} }` : random.chance(0.05) ? ' { x }' : '';
    parts.push(`${alias}${field.name}${directive}${inner}`);
  }
  if (random.chance(0.1)) parts.push('__typename');
  if (random.chance(0.05)) parts.push(random.pick(['unknownField', '__schema { types { name } }', '__type(name: "Query") { name }']));
  if (random.chance(0.05)) parts.push(`... on ${type.name} { __typename }`);
  return parts.join(' ');
}

/** A document built from the schema: mostly valid, with wrong argument values, unknown fields and odd directives mixed in. */
export function generateDocument(random: Random): string {
  const roots: string[] = [];
  const rootCount = 1 + random.int(4);
  for (let i = 0; i < rootCount; i++) {
    const field = random.pick(Object.values(queryType.getFields()));
    const args = field.args.map((arg) => `${arg.name}: ${random.pick(ARGUMENT_VALUES)}`);
    if (random.chance(0.05)) args.push(`extra: ${random.pick(ARGUMENT_VALUES)}`);
    const named = getNamedType(field.type) as GraphQLObjectType;
    roots.push(`r${i}: ${field.name}${args.length > 0 && random.chance(0.95) ? `(${args.join(', ')})` : ''} { ${selection(random, named, 1)} }`);
  }
  const variables = random.chance(0.3) ? `(${random.pick(['$v: String', '$v: UUID!', '$flag: Boolean!', '$v: [[String]]', '$v: Nope', '$v: MacAddress'])})` : '';
  const kind = random.pick(['query', 'query', 'query', 'mutation', 'subscription', '']);
  const name = random.chance(0.3) ? ` Op${random.int(3)}` : '';
  const head = kind === '' ? '' : `${kind}${name}${variables} `;
  const extra = random.chance(0.1) ? ` query Other { __typename } fragment F on Query { __typename }` : '';
  return `${head}{ ${roots.join(' ')} }${extra}`;
}

const NOISE = ['{', '}', '(', ')', '[', ']', ':', '$', '@', '!', '...', '"', '"""', '\\', '#', '=', ',', '\n', ' ', 'a', '0', '-', '&', '|', '\u0000', '\uffff', 'é', '🛰', 'query', 'fragment', 'on'];

/** A document with random edits: cut, duplicated, spliced with noise, truncated. */
export function mutateDocument(random: Random, document: string): string {
  let text = document;
  const edits = 1 + random.int(4);
  for (let i = 0; i < edits; i++) {
    const at = random.int(text.length + 1);
    const span = random.int(Math.min(20, text.length - at) + 1);
    switch (random.int(5)) {
      case 0:
        text = text.slice(0, at) + text.slice(at + span);
        break;
      case 1:
        text = text.slice(0, at) + text.slice(at, at + span).repeat(2 + random.int(3)) + text.slice(at);
        break;
      case 2:
        text = text.slice(0, at) + random.pick(NOISE) + text.slice(at);
        break;
      case 3:
        text = text.slice(0, at);
        break;
      default:
        text = text.slice(0, at) + text.slice(at).split('').reverse().join('').slice(0, span) + text.slice(at + span);
    }
  }
  return text;
}

/** Documents built to hurt: deep nesting, floods of aliases, fields, directives and fragments, huge literals. */
export function generateHostileDocument(random: Random): string {
  const n = random.pick([13, 50, 500, 2_000, 5_000, 6_000]);
  switch (random.int(9)) {
    case 0:
      return `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }`;
    case 1:
      return `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    case 2:
      return `{ ${'companyBySlug(slug: "acme") { networks { virtualDevices { hardwareDevice { serialNumber } } } } '.repeat(Math.min(n, 500))} }`;
    case 3:
      return `{ __typename ${'@include(if: true) '.repeat(n)} }`;
    case 4: {
      let fragments = '';
      const levels = Math.min(n, 40);
      for (let i = 0; i < levels; i++) fragments += ` fragment F${i} on Company { name ...F${i + 1} ...F${i + 1} }`;
      return `{ companyBySlug(slug: "acme") { ...F0 } }${fragments} fragment F${levels} on Company { slug }`;
    }
    case 5:
      return `{ companyBySlug(slug: "${'a'.repeat(n * 100)}") { name } }`;
    case 6:
      return `{ virtualDevice(UUID: ${'['.repeat(n)}"x"${']'.repeat(n)}) { label } }`;
    case 7:
      return `{ ${'networksForCompany(companySlug: "acme") { UUID } '.repeat(Math.min(n, 3000))} }`;
    default:
      return `query (${Array.from({ length: Math.min(n, 2000) }, (_, i) => `$v${i}: String`).join(', ')}) { __typename }`;
  }
}

/** A JSON body: mostly well formed around the document, sometimes of the wrong types, or not the right shape at all. */
export function generateBody(random: Random, query: string): Buffer {
  if (random.chance(0.7)) {
    const body: Record<string, unknown> = { query };
    if (random.chance(0.3)) body.variables = random.pick<unknown>([null, {}, { v: IDS.acmeHq, flag: true }, { v: 'x'.repeat(10_000) }, { v: { nested: [1, [2, [3]]] } }, { flag: 'yes' }]);
    if (random.chance(0.2)) body.operationName = random.pick<unknown>([null, 'Op0', 'Op1', 'Other', '']);
    return Buffer.from(JSON.stringify(body));
  }
  switch (random.int(6)) {
    case 0:
      return Buffer.from(JSON.stringify({ query: random.pick<unknown>([12, true, null, [], {}, ['{ __typename }'], '']) }));
    case 1:
      return Buffer.from(JSON.stringify([{ query }, { query }]));
    case 2:
      return Buffer.from(random.pick(['', ' ', 'null', 'true', '"{ __typename }"', '12', '{', '{"query":', '{"query":"{ __typename }",}', '{"__proto__":{"query":"x"}}', '{"query":"{ __typename }","constructor":{"prototype":{"x":1}}}', `{"query":"{ __typename }","variables":${'['.repeat(5000)}${']'.repeat(5000)}}`, `{"query":"{ __typename }","variables":{"v":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}}`, '{"query":"{ __typename }","extensions":{"x":[{"__proto__":{}}]}}', '{"query":"{ __typename }","variables":{"v":1e999}}', '{"query":"{ __typename }","query":"{ nope }"}']));
    case 3: {
      // invalid UTF-8 inside and around the JSON
      const bad = Buffer.from(random.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]));
      return Buffer.concat([Buffer.from('{"query":"{ companyBySlug(slug: \\"'), bad, Buffer.from('\\") { name } }"}')]);
    }
    case 4:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ query }))]);
    default:
      return Buffer.from(
        JSON.stringify({
          query,
          variables: random.pick<unknown>([[], 'str', 12, true]),
          operationName: random.pick<unknown>([12, {}, [], true]),
          extensions: random.pick<unknown>([null, {}, 'x', [], { persistedQuery: { sha256Hash: 'x' } }]),
        }),
      );
  }
}

/** Headers a well-behaved client sends, and the odd ones others do. */
export function generateHeaders(random: Random, key: string): [string, string][] {
  const headers: [string, string][] = [];
  // mostly the right key, so most requests get past authentication to the parts under test
  const auth = random.chance(0.85)
    ? random.pick([`Bearer ${key}`, `bearer ${key}`, `Bearer  ${key}  `])
    : random.pick([`Bearer ${key}x`, 'Bearer', `Basic ${key}`, `Bearer ${'k'.repeat(5000)}`, `Bearer ${key.slice(0, -1)}A`, '']);
  if (auth !== '') headers.push(['Authorization', auth]);
  if (random.chance(0.02)) headers.push(['Authorization', `Bearer ${key}`]);
  const type = random.chance(0.8)
    ? random.pick(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'])
    : random.pick(['application/json; charset=latin1', 'application/json;charset=utf-16', 'application/json, text/plain', 'application/jsonx', 'text/plain', 'application/graphql', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '', ';;;', 'application/json; =']);
  if (type !== '') headers.push(['Content-Type', type]);
  if (random.chance(0.3)) {
    headers.push(['Accept', random.pick(['*/*', 'application/json', 'application/graphql-response+json', 'text/html', 'application/json;q=0', '*/*;q=abc', 'application/graphql-response+json;q=0.5, application/json;q=0.9', ',,,', 'application/*'])]);
  }
  if (random.chance(0.1)) headers.push(['X-Request-Id', random.pick(['abc', 'x'.repeat(500), 'bad id with spaces', '../../etc', '\u00e9t\u00e9'])]);
  if (random.chance(0.05)) headers.push(['Content-Encoding', random.pick(['gzip', 'br', 'identity', 'nonsense'])]);
  if (random.chance(0.03)) headers.push(['X-Padding', 'p'.repeat(random.pick([100, 20_000]))]);
  if (random.chance(0.03)) headers.push(['Expect', '100-continue']);
  return headers;
}

/** HTTP the parser must refuse: framing, header syntax, versions, request targets. */
function generateMalformedHttp(random: Random, key: string): RawRequest {
  const body = Buffer.from(JSON.stringify({ query: '{ __typename }' }));
  const headers: [string, string][] = [
    ['Authorization', `Bearer ${key}`],
    ['Content-Type', 'application/json'],
  ];
  switch (random.int(7)) {
    case 0:
      // chunked by hand, sometimes with a broken chunk size (never a longer one: that is a slow client, answered 408 after a minute)
      return { method: 'POST', path: '/api/v1/graphql', headers: [...headers, ['Transfer-Encoding', 'chunked']], omitContentLength: true, body: Buffer.from(`${random.pick([body.length.toString(16), 'zz', '-1', '1'])}\r\n${body.toString()}\r\n0\r\n\r\n`) };
    case 1:
      return { method: 'POST', path: '/api/v1/graphql', headers: [...headers, ['Transfer-Encoding', 'chunked']], body };
    case 2:
      return { method: 'POST', path: '/api/v1/graphql', headers: [...headers, ['Bad Header', 'x']], body };
    case 3:
      return { method: 'POST', path: '/api/v1/graphql', headers: [...headers, ['X-Ctl', 'a\u0001b']], body };
    case 4:
      return { method: random.pick(['post', 'P0ST', 'CONNECT', 'TRACE']), path: '/api/v1/graphql', headers, body };
    case 5:
      return { method: 'POST', path: random.pick(['http://example.com/api/v1/graphql', '*', 'api/v1/graphql']), headers, body };
    default:
      // a Content-Length shorter than the body: the rest looks like a second, broken request
      return { method: 'POST', path: '/api/v1/graphql', headers: [...headers, ['Content-Length', String(body.length - 5)]], omitContentLength: true, body };
  }
}

/**
 * A document over the 1 MiB body limit (answered 413 from Content-Length, or
 * 401 or 415 before the body is read): 1 to 6 MiB as `style` goes from 0.98
 * to 1. Its size comes from `style`, not from a draw of its own, so the
 * requests a seed generates stay those it generated before there were any.
 */
function oversizedDocument(style: number): string {
  return `{ __typename } #${'x'.repeat(Math.round((1 + (style - 0.98) * 250) * 1024 * 1024))}`;
}

/** One hostile request to the GraphQL endpoint (or, now and then, around it). */
export function generateRequest(random: Random, key: string): RawRequest {
  if (random.chance(0.03)) return generateMalformedHttp(random, key);
  const style = random.next();
  const base = generateDocument(random);
  const query = style < 0.35 ? base : style < 0.75 ? mutateDocument(random, base) : style < 0.9 ? generateHostileDocument(random) : style < 0.98 ? '{ __typename }' : oversizedDocument(style);
  const method = random.chance(0.03) ? random.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) : 'POST';
  const path = random.chance(0.03) ? random.pick(['/api/v1/graphql/', '/api/v1/graphql?query={__typename}', '/api/v1/GRAPHQL', '//api/v1/graphql', '/api/v1/graphql%00', '/%ZZ', `/${'x'.repeat(3000)}`, '/api/v1/graphql#x']) : '/api/v1/graphql';
  return { method, path, headers: generateHeaders(random, key), body: generateBody(random, query) };
}
