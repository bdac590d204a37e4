import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/kernel/errors.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { createRandom, generateRequest } from './helpers/fuzz.js';
import type { Random } from './helpers/fuzz.js';
import { generateReportRequest, ingestAnswerProblem } from './helpers/fuzz-reports.js';
import { sendRaw } from './helpers/raw-http.js';
import type { RawRequest, RawResponse } from './helpers/raw-http.js';
import { storeKinds } from './helpers/stores.js';

/** FUZZ_SEED replays a run; FUZZ_REQUESTS sets its size. Both are printed. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const CONCURRENCY = 8;
/** Enough for FUZZ_REQUESTS=100000 (the long run) on a loaded two-core machine. */
const FUZZ_TIMEOUT_MS = Math.max(120_000, REQUESTS * 20);

/**
 * What is wrong with a response, or undefined when it is one of the two
 * documented shapes (docs/errors.md): a GraphQL body, or a problem body.
 */
export function shapeProblem(request: RawRequest, response: RawResponse): string | undefined {
  if (response.status >= 500) return `status ${response.status}`;
  if (isDashboardAnswer(request, response)) return undefined;
  if (response.body.length === 0) return request.method === 'HEAD' ? undefined : 'empty body';
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `body is not JSON: ${JSON.stringify(response.body.subarray(0, 200).toString('utf8'))}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not a JSON object';
  const record = body as Record<string, unknown>;
  if (request.path === '/api/v1/reports' && response.status === 200) return ingestAnswerProblem(record);
  if ('title' in record) return problemShape(record, response.status);
  return graphqlShape(record, response.status);
}

/**
 * A browser's GET outside /api/ (Accept: text/html) is the dashboard's: a
 * redirect to sign-in, or an HTML 404 page (docs/errors.md, NOT_FOUND).
 */
function isDashboardAnswer(request: RawRequest, response: RawResponse): boolean {
  const accept = request.headers.find(([name]) => name.toLowerCase() === 'accept')?.[1] ?? '';
  if (request.method !== 'GET' || request.path.startsWith('/api/') || !accept.includes('text/html')) return false;
  if (response.status === 302) return (response.headers.location ?? '').startsWith('/sign-in?next=');
  return response.status === 404 && (response.headers['content-type'] ?? '').startsWith('text/html');
}

function problemShape(body: Record<string, unknown>, status: number): string | undefined {
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'id,status,title' && keys !== 'detail,id,status,title') return `problem body with keys ${keys}`;
  if (typeof body.title !== 'string' || typeof body.id !== 'string') return 'problem body without title or id strings';
  if (body.detail !== undefined && typeof body.detail !== 'string') return 'problem detail is not a string';
  return body.status === status ? undefined : `problem status ${String(body.status)} on an HTTP ${status}`;
}

function graphqlShape(body: Record<string, unknown>, status: number): string | undefined {
  const extra = Object.keys(body).filter((k) => k !== 'data' && k !== 'errors');
  if (extra.length > 0) return `GraphQL body with keys ${extra.join(',')}`;
  if (!('data' in body)) return 'GraphQL body without data';
  if (body.data !== null && (typeof body.data !== 'object' || Array.isArray(body.data))) return 'data is neither an object nor null';
  if (status !== 200 && (body.data !== null || body.errors === undefined)) return `HTTP ${status} with data or without errors`;
  if (body.errors === undefined) return status === 200 ? undefined : 'error status without errors';
  if (!Array.isArray(body.errors) || body.errors.length === 0) return 'errors is not a non-empty array';
  for (const error of body.errors as Record<string, unknown>[]) {
    if (typeof error?.message !== 'string' || error.message === '') return 'an error without a message';
    const code = (error.extensions as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || !Object.hasOwn(ERROR_CODES, code)) return `an error with code ${String(code)}`;
    if (code === 'INTERNAL_SERVER_ERROR') return 'an INTERNAL_SERVER_ERROR';
    if (/Maximum call stack|RangeError/.test(error.message)) return 'a stack overflow shown to the client';
  }
  return undefined;
}

describe('the fuzz checker', () => {
  const request: RawRequest = { method: 'POST', path: '/api/v1/graphql', headers: [], body: Buffer.from('{}') };
  const answer = (status: number, body: string): RawResponse => ({ status, headers: {}, body: Buffer.from(body) });

  it('accepts the documented shapes', () => {
    expect(shapeProblem(request, answer(200, '{"data":{"x":1}}'))).toBeUndefined();
    expect(shapeProblem(request, answer(200, '{"errors":[{"message":"m","path":["x"],"extensions":{"code":"UNAUTHORIZED"}}],"data":{"x":null}}'))).toBeUndefined();
    expect(shapeProblem(request, answer(422, '{"errors":[{"message":"m","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}],"data":null}'))).toBeUndefined();
    expect(shapeProblem(request, answer(429, '{"title":"Too many requests","id":"too_many_requests","detail":"Too many requests","status":429}'))).toBeUndefined();
  });

  it('flags a 5xx, a masked error, an unknown code, a non-JSON body and Fastify\'s own error format', () => {
    expect(shapeProblem(request, answer(500, '{"errors":[{"message":"m","extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":null}'))).toBe('status 500');
    expect(shapeProblem(request, answer(400, '{"errors":[{"message":"m","extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":null}'))).toBe('an INTERNAL_SERVER_ERROR');
    expect(shapeProblem(request, answer(400, '{"errors":[{"message":"m","extensions":{"code":"FST_ERR"}}],"data":null}'))).toBe('an error with code FST_ERR');
    expect(shapeProblem(request, answer(400, 'Bad Request'))).toMatch(/^body is not JSON/);
    expect(shapeProblem(request, answer(431, '{"error":"Request Header Fields Too Large","message":"m","statusCode":431}'))).toMatch(/^GraphQL body with keys/);
    expect(shapeProblem(request, answer(429, '{"title":"t","id":"x","status":400}'))).toBe('problem status 400 on an HTTP 429');
    expect(shapeProblem(request, answer(404, ''))).toBe('empty body');
    expect(shapeProblem(request, answer(422, '{"errors":[{"message":"RangeError: Maximum call stack size exceeded","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}],"data":null}'))).toBe(
      'a stack overflow shown to the client',
    );
  });

  it('accepts the dashboard\'s answers to a browser outside /api/, and nowhere else', () => {
    const browser: RawRequest = { method: 'GET', path: '//api/v1/graphql', headers: [['Accept', 'text/html']], body: Buffer.alloc(0) };
    const redirect: RawResponse = { status: 302, headers: { location: '/sign-in?next=%2F%2Fapi%2Fv1%2Fgraphql' }, body: Buffer.alloc(0) };
    const page: RawResponse = { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from('<!doctype html>') };
    expect(shapeProblem(browser, redirect)).toBeUndefined();
    expect(shapeProblem(browser, page)).toBeUndefined();
    expect(shapeProblem({ ...browser, path: '/api/v2/graphql' }, page)).toMatch(/^body is not JSON/);
    expect(shapeProblem({ ...browser, headers: [['Accept', 'application/json']] }, redirect)).toBe('empty body');
    expect(shapeProblem({ ...browser, method: 'POST' }, page)).toMatch(/^body is not JSON/);
  });
});

describe.each(storeKinds())('fuzz on %s', (kind) => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await app.createKey('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`survives ${REQUESTS} generated hostile requests: no 5xx, every body in a documented shape`, async () => {
    const seed = SEED + (kind === 'postgres' ? 1 : 0);
    const failures = await fuzz(app, kind, seed, REQUESTS, (random) => generateRequest(random, key));
    expect(failures.slice(0, 10)).toEqual([]);

    const normal = await app.graphql('{ companyBySlug(slug: "acme") { name networks { label } } }', { key });
    expect(normal.status).toBe(200);
    expect(normal.body.data.companyBySlug.networks).toHaveLength(3);
  }, FUZZ_TIMEOUT_MS);

  it(`survives ${REPORT_REQUESTS} generated hostile report batches: no 5xx, every body in a documented shape`, async () => {
    const keys = {
      ingest: (await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'fuzz collector', scope: 'ingest' })).key,
      read: key,
    };
    const seed = SEED + (kind === 'postgres' ? 3 : 2);
    const failures = await fuzz(app, kind, seed, REPORT_REQUESTS, (random) => generateReportRequest(random, keys));
    expect(failures.slice(0, 10)).toEqual([]);
  }, FUZZ_TIMEOUT_MS);
});

const REPORT_REQUESTS = Math.ceil(REQUESTS / 4);

/** Sends `count` generated requests, CONCURRENCY at a time; returns what was wrong with the answers. */
async function fuzz(app: TestApp, kind: string, seed: number, count: number, generate: (random: Random) => RawRequest): Promise<string[]> {
  const { hostname, port } = new URL(app.url);
  const random = createRandom(seed);
  const byStatus = new Map<string, number>();
  const failures: string[] = [];
  let next = 0;
  let large = 0;
  let path = '-';
  // each request is made when a worker takes it (synchronously, in index order, so a seed makes the same requests):
  // a run of 100,000 holds a few bodies of megabytes at a time, not thousands
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const request = generate(random);
      if (request.body.length > 1024 * 1024) large += 1;
      if (index === 0) path = request.path;
      let outcome: string;
      try {
        const response = await sendRaw(hostname, Number(port), request);
        outcome = String(response.status);
        const problem = shapeProblem(request, response);
        if (problem) failures.push(`#${index} ${request.method} ${request.path.slice(0, 60)}: ${problem}\n  body sent: ${JSON.stringify(request.body.subarray(0, 300).toString('utf8'))}\n  answer: ${response.body.subarray(0, 300).toString('utf8')}`);
      } catch (error) {
        outcome = 'no answer';
        const headers = request.headers.map(([name, value]) => `${name}: ${value.slice(0, 40)}`).join(', ');
        failures.push(`#${index} ${request.method} ${request.path.slice(0, 60)} (${headers}; ${request.body.length} bytes): ${error instanceof Error ? error.message : String(error)}`);
      }
      byStatus.set(outcome, (byStatus.get(outcome) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const counts = [...byStatus.entries()].sort().map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`fuzz on ${kind}: seed ${seed} (FUZZ_SEED=${SEED}), ${count} requests to ${path} sent (${large} with a body over 1 MiB); by status ${counts}`);
  return failures;
}
