import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES as SERVER_CODES } from '../kernel/errors.js';
import { documentText, graphql, readOperation } from './client.documents.js';
import { ERROR_CODES, errorsOfBody } from './client.errors.js';
import { createPacer, readLimitHeaders, retryAt } from './client.pacer.js';
import { backoffDelay } from './client.retry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the client', () => {
  it("knows every code of the server's registry, and no other", () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(SERVER_CODES).sort());
  });

  it('reads Retry-After as an HTTP date on the server clock (by its Date header) or as seconds', () => {
    const receivedAt = Date.parse('2026-03-02T15:30:40.300Z');
    // the server's clock is 10 s ahead of this one; Date is truncated to the second, so the wait is never short
    const server = new Headers({ date: 'Sun, 02 Mar 2026 15:30:50 GMT', 'retry-after': 'Sun, 02 Mar 2026 15:30:54 GMT' });
    expect(retryAt(server, receivedAt)).toBe(receivedAt + 4_000);
    expect(retryAt(new Headers({ 'retry-after': 'Sun, 02 Mar 2026 15:30:54 GMT' }), receivedAt)).toBe(Date.parse('2026-03-02T15:30:54Z'));
    expect(retryAt(new Headers({ 'retry-after': '7' }), receivedAt)).toBe(receivedAt + 7_000);
    expect(retryAt(new Headers({ 'retry-after': 'soon' }), receivedAt)).toBeUndefined();
    expect(retryAt(new Headers(), receivedAt)).toBeUndefined();
  });

  it("reads both limits from netgraph's headers", () => {
    const headers = new Headers({
      'x-ratelimit-remaining': '3',
      'x-ratelimit-reset': 'Sun, 02 Mar 2026 15:31:00 GMT',
      'x-complexity-remaining': '100',
      'x-complexity-limit': '750',
      'ratelimit-policy': '"requests";q=500;w=60, "complexity";q=750;w=15;netgraph-unit="points"',
    });
    expect(readLimitHeaders(headers, 1000)).toEqual({
      requests: { remaining: 3, resetAt: Date.parse('2026-03-02T15:31:00Z') },
      budget: { level: 100, at: 1000, capacity: 750, perMs: 0.05 },
    });
  });

  it('reads a budget below zero from X-Complexity-Reset: the level it refills to one point from by then', () => {
    const headers = new Headers({
      date: new Date(1000).toUTCString(),
      'x-complexity-remaining': '0',
      'x-complexity-limit': '750',
      'x-complexity-reset': new Date(5000).toUTCString(),
      'ratelimit-policy': '"requests";q=500;w=60, "complexity";q=750;w=15',
    });
    // back at one point 4 s after the answer, at 50 points a second: 1 - 200 points now
    expect(readLimitHeaders(headers, 1000).budget).toEqual({ level: -199, at: 1000, capacity: 750, perMs: 0.05 });
  });

  it("paces: no request past the window, and none until the budget holds one point, whatever the document's cost", () => {
    let t = 0;
    const pacer = createPacer(() => t);
    const headers = (requests: number, points: number, extra: Record<string, string> = {}) =>
      new Headers({
        'x-ratelimit-remaining': String(requests),
        'x-ratelimit-reset': new Date(60_000).toUTCString(),
        'x-complexity-remaining': String(points),
        'x-complexity-limit': '750',
        'ratelimit-policy': '"requests";q=500;w=60, "complexity";q=750;w=15',
        ...extra,
      });
    expect(pacer.admit('q')).toBe(0);
    pacer.settle('q', { headers: headers(5, 40), requestedCost: 100, receivedAt: t });
    // 40 points: the server admits a document of 100 at one point, so the pacer does too
    expect(pacer.admit('q')).toBe(0);
    // the 100 points in flight take the budget to -60: one point is 61 points away, 1.22 s at 50 a second
    expect(pacer.admit('other')).toBe(1220);
    // the answer: 0 points, back at one point at the reset (rounded up to 3 s); its own account (40 - 100) is within that
    pacer.settle('q', { headers: headers(4, 0, { 'x-complexity-cost': '100', 'x-complexity-reset': new Date(3000).toUTCString() }), requestedCost: 100, receivedAt: t });
    expect(pacer.admit('q')).toBe(1220);
    t = 1220;
    expect(pacer.admit('q')).toBe(0);
    pacer.settle('q', { headers: headers(0, 700), requestedCost: 100, receivedAt: t });
    expect(pacer.admit('q')).toBe(60_000 - 1220);
    t = 60_000;
    expect(pacer.admit('q')).toBe(0);
  });

  it('paces from X-Complexity-Reset when its own account of the budget is off by more than the reset\'s rounding', () => {
    const t = 0;
    const pacer = createPacer(() => t);
    const complexity = { 'x-complexity-limit': '750', 'ratelimit-policy': '"requests";q=500;w=60, "complexity";q=750;w=15' };
    expect(pacer.admit('q')).toBe(0);
    pacer.settle('q', { headers: new Headers({ ...complexity, 'x-complexity-remaining': '750' }), requestedCost: 10, receivedAt: t });
    expect(pacer.admit('q')).toBe(0);
    // another program spent the key's budget: 0 points until 10 s, though this client's account says 740
    pacer.settle('q', { headers: new Headers({ ...complexity, 'x-complexity-remaining': '0', 'x-complexity-cost': '10', 'x-complexity-reset': new Date(10_000).toUTCString() }), requestedCost: 10, receivedAt: t });
    // trusted up to 2 s of rounding before the reset: the wait ends at 8 s at the earliest
    expect(pacer.admit('q')).toBe(8_000);
  });

  it('backs off with full jitter under a doubling ceiling', () => {
    expect(backoffDelay({}, 1, () => 1)).toBe(250);
    expect(backoffDelay({}, 3, () => 1)).toBe(1000);
    expect(backoffDelay({ maxDelayMs: 800 }, 10, () => 1)).toBe(800);
    expect(backoffDelay({}, 3, () => 0)).toBe(0);
  });

  it('turns Meter problem bodies and bodies that are not GraphQL into typed errors', () => {
    expect(errorsOfBody({ title: 'Too many requests', id: 'too_many_requests', detail: 'Too many requests', status: 429 }, 429)).toEqual([
      { message: 'Too many requests', extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } },
    ]);
    expect(errorsOfBody(undefined, 502)).toEqual([{ message: 'HTTP 502 without a GraphQL answer', extensions: { code: 'HTTP_ERROR', status: 502 } }]);
    expect(errorsOfBody({ data: {} }, 200)).toEqual([]);
  });

  it("sends a document's text with each fragment once, and knows its operation", () => {
    const Address = graphql(`fragment Address on MailingAddress { city }`);
    const A = graphql(`fragment A on Network { label mailingAddress { ...Address } }`, [Address]);
    const B = graphql(`fragment B on Network { slug mailingAddress { ...Address } }`, [Address]);
    const Query = graphql(`query Both($id: UUID!) { network(UUID: $id) { ...A ...B } }`, [A, B]);
    const text = documentText(Query);
    expect(text.match(/fragment Address/g)).toHaveLength(1);
    expect(text).toContain('fragment A on Network');
    expect(text).toContain('fragment B on Network');
    expect(readOperation(Query)).toEqual({ kind: 'query', name: 'Both', variables: ['id'] });
    expect(() => readOperation(graphql(`query A { __typename } query B { __typename }`))).toThrow('pass operationName');
  });

  it('has the schema types of the committed schema.graphql (npm run schema writes graphql-env.d.ts)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-tada-'));
    try {
      const tsconfig = path.join(dir, 'tsconfig.json');
      const plugin = { name: 'gql.tada/ts-plugin', schemas: [{ name: 'netgraph', schema: path.join(ROOT, 'schema.graphql'), tadaOutputLocation: path.join(dir, 'graphql-env.d.ts') }] };
      fs.writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { plugins: [plugin] } }));
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/gql.tada/bin/cli.js'), 'generate-output', '--tsconfig', tsconfig], { cwd: ROOT });
      expect(fs.readFileSync(path.join(dir, 'graphql-env.d.ts'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'graphql-env.d.ts'), 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
