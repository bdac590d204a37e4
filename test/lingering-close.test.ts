import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_IDLE_MS, LINGER_MAX_BYTES } from '../src/http/lingering-close.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { parseResponse, sendStreamed } from './helpers/raw-http.js';
import type { StreamedOutcome, StreamedRequest } from './helpers/raw-http.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const MIB = 1024 * 1024;
/** How often each upload is repeated: a reset depends on timing, so one clean run proves little. */
const REPEATS = 30;
const JSON_HEADERS = [['Content-Type', 'application/json']] as const;

/** The answer's status and error code, and how the connection ended: what every case below asserts. */
function summary(
  request: StreamedRequest,
  outcome: StreamedOutcome,
): { status?: number; code?: string; connection?: string; truncated?: true; error?: string; sentAll: boolean } {
  const { response } = outcome;
  let code: string | undefined;
  try {
    const body = JSON.parse(response?.body.toString('utf8') ?? '') as { errors?: { extensions?: { code?: string } }[]; id?: string };
    code = body.errors?.[0]?.extensions?.code ?? body.id;
  } catch {
    code = undefined;
  }
  return {
    ...(response ? { status: response.status, connection: response.headers.connection } : {}),
    // parseResponse cuts the body at Content-Length: shorter means the rest never came
    ...(response && response.body.length < Number(response.headers['content-length'] ?? 0) ? { truncated: true as const } : {}),
    ...(code === undefined ? {} : { code }),
    ...(outcome.error ? { error: outcome.error } : {}),
    sentAll: outcome.sentBytes === request.bodyBytes,
  };
}

type Summary = ReturnType<typeof summary>;

/** A summary with its keys in one order, to compare as text. */
function summaryOf(value: Summary): Summary {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) as Summary;
}

describe.each(storeKinds())('an early answer while the body still arrives, on %s', (kind) => {
  let app: TestApp;
  let host: string;
  let port: number;
  let readKey: string;
  let ingestKey: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    ({ hostname: host } = new URL(app.url));
    port = Number(new URL(app.url).port);
    readKey = await app.createKey('acme');
    ingestKey = await createScopedKey(app, 'ingest');
  });
  afterAll(async () => {
    await app?.close();
  });
  const openConnections = () =>
    new Promise<number>((resolve, reject) => app.server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

  /** Sends `request` REPEATS times, 3 at a time; every client must have sent its whole body and read the whole answer. */
  async function expectEveryAnswerRead(request: StreamedRequest, status: number, code?: string): Promise<void> {
    const outcomes: Summary[] = [];
    let started = 0;
    const worker = async () => {
      while (started++ < REPEATS) outcomes.push(summary(request, await sendStreamed(host, port, request)));
    };
    await Promise.all([worker(), worker(), worker()]);
    const expected = JSON.stringify(summaryOf({ status, ...(code === undefined ? {} : { code }), connection: 'close', sentAll: true }));
    expect(outcomes.filter((outcome) => JSON.stringify(summaryOf(outcome)) !== expected)).toEqual([]);
  }

  const graphql = (bodyBytes: number, extra: Partial<StreamedRequest> = {}): StreamedRequest => ({
    method: 'POST',
    path: '/api/v1/graphql',
    headers: [['Authorization', `Bearer ${readKey}`], ...JSON_HEADERS],
    bodyBytes,
    ...extra,
  });
  const reports = (bodyBytes: number, extra: Partial<StreamedRequest> = {}): StreamedRequest => ({
    method: 'POST',
    path: '/api/v1/reports',
    headers: [['Authorization', `Bearer ${ingestKey}`], ...JSON_HEADERS],
    bodyBytes,
    ...extra,
  });

  describe('POST /api/v1/graphql (bare node:http)', () => {
    it.each([6, 12])('answers 413 to %i MiB with Content-Length, and the client reads it', async (mib) => {
      await expectEveryAnswerRead(graphql(mib * MIB), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);

    it('answers 413 to 6 MiB chunked (no Content-Length), and the client reads it', async () => {
      await expectEveryAnswerRead(graphql(6 * MIB, { chunked: true }), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);

    it('answers 401 to no key with 12 MiB on the way, and the client reads it', async () => {
      await expectEveryAnswerRead(graphql(12 * MIB, { headers: JSON_HEADERS }), 401, 'unauthorized');
    }, 120_000);
  });

  describe('POST /api/v1/graphql (Fastify: a query string)', () => {
    it('answers 413 to 6 MiB, and the client reads it', async () => {
      await expectEveryAnswerRead(graphql(6 * MIB, { path: '/api/v1/graphql?x=1' }), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);
  });

  describe('POST /api/v1/reports', () => {
    it.each([6, 12])('answers 413 to %i MiB with Content-Length, and the client reads it', async (mib) => {
      await expectEveryAnswerRead(reports(mib * MIB), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);

    it('answers 413 to 12 MiB chunked (no Content-Length), and the client reads it', async () => {
      await expectEveryAnswerRead(reports(12 * MIB, { chunked: true }), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);

    it('answers 413 to 6 MiB of gzip, and the client reads it', async () => {
      const headers = [...reports(0).headers, ['Content-Encoding', 'gzip']] as const;
      await expectEveryAnswerRead(reports(6 * MIB, { headers }), 413, 'PAYLOAD_TOO_LARGE');
      await expectEveryAnswerRead(reports(6 * MIB, { headers, chunked: true }), 413, 'PAYLOAD_TOO_LARGE');
    }, 120_000);

    it('answers 401 to no key with 12 MiB on the way, and the client reads it', async () => {
      await expectEveryAnswerRead(reports(12 * MIB, { headers: JSON_HEADERS }), 401, 'unauthorized');
    }, 120_000);

    it('answers 403 to a read key with 12 MiB on the way, and the client reads it', async () => {
      await expectEveryAnswerRead(reports(12 * MIB, { headers: [['Authorization', `Bearer ${readKey}`], ...JSON_HEADERS] }), 403, 'FORBIDDEN');
    }, 120_000);
  });

  describe('the dashboard', () => {
    const form = (path: string, bodyBytes: number, chunked = false): StreamedRequest => ({
      method: 'POST',
      path,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      bodyBytes,
      chunked,
    });

    it('answers a sign-in form of 6 MiB with 413, and the browser reads it', async () => {
      await expectEveryAnswerRead(form('/sign-in', 6 * MIB), 413);
    }, 120_000);

    it('answers a form post of 12 MiB chunked with 413, and the browser reads it', async () => {
      await expectEveryAnswerRead(form('/networks', 12 * MIB, true), 413);
    }, 120_000);
  });

  describe('answers before any route', () => {
    // the fuzz's find: a URL that does not decode is answered by Fastify's frameworkErrors, outside the routes' hooks
    it('answers 400 to a URL that does not decode with 6 MiB on the way, and the client reads it', async () => {
      await expectEveryAnswerRead(graphql(6 * MIB, { path: '/%ZZ' }), 400, 'BAD_REQUEST');
    }, 120_000);
  });

  describe('the bounds', () => {
    it(`closes the connection of a client that goes on sending past ${LINGER_MAX_BYTES / MIB} MiB`, async () => {
      const outcome = await sendStreamed(host, port, reports(4 * LINGER_MAX_BYTES, { chunked: true, writeBytes: 1024 * 1024 }));
      expect(outcome.sentBytes).toBeGreaterThan(LINGER_MAX_BYTES);
      expect(outcome.sentBytes).toBeLessThan(2 * LINGER_MAX_BYTES);
    }, 60_000);

    it(`lets go of a client that stops sending ${LINGER_IDLE_MS / 1000} s after its last bytes, its answer read`, async () => {
      const socket = net.connect({ host, port, allowHalfOpen: true });
      try {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        await once(socket, 'connect');
        const head = `POST /api/v1/graphql HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${readKey}\r\nContent-Type: application/json\r\nContent-Length: ${12 * MIB}\r\n\r\n`;
        socket.write(Buffer.concat([Buffer.from(head), Buffer.alloc(2 * MIB, 'x')]));
        // the answer, then the end of the server's writing side; the client sends no more and stays
        await once(socket, 'end');
        const answered = Date.now();
        expect(parseResponse(Buffer.concat(chunks)).status).toBe(413);
        while ((await openConnections()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const held = Date.now() - answered;
        expect(held).toBeGreaterThan(LINGER_IDLE_MS - 1_000);
        expect(held).toBeLessThan(LINGER_IDLE_MS + 3_000);
      } finally {
        socket.destroy();
      }
    }, 30_000);
  });
});
