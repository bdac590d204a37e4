import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { LoggerOptions } from 'pino';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.js';
import { warnWhenUnavailable } from '../src/http/error-answer.js';
import { createProcessLog, logRequest } from '../src/observability/log.js';
import type { RequestLine } from '../src/observability/log.js';

/** A pino logger writing into an array, with a fixed time so two lines of one logger compare equal. */
function capture(options: LoggerOptions = {}): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'info', timestamp: () => ',"time":1795690000000', ...options }, { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

const LINE: RequestLine = {
  requestId: '4c117ada-0000-4000-8000-000000000001',
  method: 'POST',
  path: '/api/v1/graphql',
  clientAddress: '203.0.113.9',
  status: 200,
  durationMs: 3.81,
  keyId: '81eebd9d-5a43-4c36-9c0e-3b9f4e0d1c2a',
  company: 'acme',
  operationName: 'VirtualDevice',
  sqlStatements: 1,
};

/** The line logRequest writes and the line pino's own info() writes for the same fields. */
function bothLines(logger: pino.Logger, lines: string[], line: RequestLine): [string | undefined, string | undefined] {
  logRequest(logger, line);
  logger.info({ ...line }, 'request');
  expect(lines).toHaveLength(2);
  return [lines[0], lines[1]];
}

describe('the request log line', () => {
  it('is byte for byte the line pino writes for the same fields', () => {
    const { logger, lines } = capture();
    const [ours, pinos] = bothLines(logger, lines, LINE);
    expect(ours).toBe(pinos);
    expect(JSON.parse(ours as string)).toEqual({ level: 30, time: 1795690000000, pid: process.pid, hostname: expect.any(String), ...LINE, msg: 'request' });
  });

  it("carries a child logger's bindings (Fastify's request id) and leaves out absent fields, as pino does", () => {
    const { logger, lines } = capture();
    const child = logger.child({ requestId: 'from-the-binding' });
    const line: RequestLine = { ...LINE, clientAddress: undefined, keyId: undefined, company: undefined, operationName: undefined };
    delete (line as { requestId?: string }).requestId;
    const [ours, pinos] = bothLines(child, lines, line);
    expect(ours).toBe(pinos);
    const parsed = JSON.parse(ours as string) as Record<string, unknown>;
    expect(parsed.requestId).toBe('from-the-binding');
    expect(parsed).not.toHaveProperty('clientAddress');
    expect(parsed).not.toHaveProperty('keyId');
  });

  it('escapes what a client sent (an operation name, a forwarded address) and writes a duration that is not a number as null', () => {
    const { logger, lines } = capture();
    const line: RequestLine = { ...LINE, operationName: 'a "quoted"\nname\\ \u0001 ünï €', clientAddress: '"},"status":500,"x":"', durationMs: Number.NaN };
    const [ours, pinos] = bothLines(logger, lines, line);
    expect(ours).toBe(pinos);
    const parsed = JSON.parse(ours as string) as Record<string, unknown>;
    expect(parsed).toMatchObject({ operationName: line.operationName, clientAddress: line.clientAddress, status: 200, durationMs: null });
  });

  it('writes every duration as pino does: hundredths from their integer parts, anything else as String() writes it', () => {
    const durations = [0, 0.01, 0.05, 0.1, 0.5, 1, 1.1, 3.8, 3.81, 10, 10.01, 10.1, 99.99, 123.45, 100_000.07, 9_999_999_999.99, 1e-7, 0.125, 2 ** 60, -1.5, Number.POSITIVE_INFINITY];
    for (let i = 0; i < 20_000; i++) durations.push(Math.round(i * 7.31 * 100) / 100);
    for (const durationMs of durations) {
      const { logger, lines } = capture();
      const [ours, pinos] = bothLines(logger, lines, { ...LINE, durationMs });
      expect(ours, String(durationMs)).toBe(pinos);
    }
  });

  it('writes nothing when the level is above info', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logRequest(logger, LINE);
    expect(lines).toEqual([]);
  });

  it("goes through pino's own info() for a logger that changes its lines (redaction, a mixin, a log formatter, a message prefix)", () => {
    const loggers: LoggerOptions[] = [
      { redact: ['keyId'] },
      { mixin: () => ({ region: 'eu' }) },
      { formatters: { log: (object) => ({ ...object, formatted: true }) } },
      { msgPrefix: '[api] ' },
    ];
    for (const options of loggers) {
      const { logger, lines } = capture(options);
      const [ours, pinos] = bothLines(logger, lines, LINE);
      expect(ours, JSON.stringify(Object.keys(options))).toBe(pinos);
    }
    const redacted = capture({ redact: ['keyId'] });
    logRequest(redacted.logger, LINE);
    expect(JSON.parse(redacted.lines[0] as string)).toMatchObject({ keyId: '[Redacted]' });
  });
});

describe("a server process's log", () => {
  it("writes each request line's bytes into its batch as pino would write the line, in order with pino's own lines", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-log-'));
    const file = path.join(dir, 'log');
    const fd = fs.openSync(file, 'w');
    const log = createProcessLog('info', fd);
    const child = log.logger.child({ route: 'ü' });
    const lines: RequestLine[] = [
      LINE,
      { ...LINE, operationName: 'a "quoted"\nname\\ \u0001 ünï €', clientAddress: '"},"status":500,"x":"', durationMs: Number.NaN },
      { ...LINE, clientAddress: undefined, keyId: undefined, company: undefined, operationName: undefined },
      // more than a batch's buffer may take for one line: written as a string, still in its place
      { ...LINE, operationName: 'x'.repeat(40_000) },
    ];
    // enough lines for several batches, some of them in one turn of the event loop
    for (let i = 0; i < 3_000; i++) lines.push({ ...LINE, durationMs: Math.round(i * 7.31) / 100, operationName: i % 7 === 0 ? `ü${i}` : `Op${i}` });
    for (const [i, line] of lines.entries()) {
      const logger = i % 5 === 0 ? child : log.logger;
      logRequest(logger, line);
      logger.info({ ...line }, 'request');
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // close() ends sonic-boom, which closes the file
    await log.close();
    const written = fs.readFileSync(file, 'utf8').split('\n');
    fs.rmSync(dir, { recursive: true, force: true });
    expect(written.pop()).toBe('');
    expect(written).toHaveLength(2 * lines.length);
    // the two lines of a pair were written a millisecond apart at most
    const untimed = written.map((line) => line.replace(/^\{"level":30,"time":\d+,/, '{"level":30,'));
    for (let i = 0; i < lines.length; i++) expect(untimed[2 * i], String(i)).toBe(untimed[2 * i + 1]);
    expect(JSON.parse(written[2] as string)).toMatchObject({ operationName: 'a "quoted"\nname\\ \u0001 ünï €', durationMs: null, msg: 'request' });
    expect(JSON.parse(written[10] as string)).toMatchObject({ route: 'ü', operationName: 'Op1', msg: 'request' });
  });
});

describe('the warning of an unavailable database', () => {
  it('warns at the first 503 for the database, then at most once every 10 s with how many were answered since', () => {
    const { logger, lines } = capture();
    let now = 0;
    const unavailable = new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly.');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const classify = warnWhenUnavailable((error) => (error === refused ? unavailable : error), logger, () => now);
    const other = new Error('not the database');
    const timeout = new AppError('TIMEOUT', 'too slow');

    expect(classify(refused)).toBe(unavailable);
    // errors that are not the database's, and AppErrors thrown as such, are not counted
    expect(classify(other)).toBe(other);
    expect(classify(timeout)).toBe(timeout);
    expect(classify(unavailable)).toBe(unavailable);
    for (now = 1_000; now < 10_000; now += 1_000) classify(refused);
    now = 10_000;
    classify(refused);
    now = 12_000;
    classify(refused);

    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, msg: 'database unavailable: requests are answered 503 with Retry-After: 1', answered503: 1, reason: unavailable.message, cause: { code: 'ECONNREFUSED', message: refused.message } }),
      expect.objectContaining({ level: 40, answered503: 10 }),
    ]);
  });
});
