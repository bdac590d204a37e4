import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { LoggerOptions } from 'pino';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/kernel/errors.js';
import { warnWhenUnavailable } from '../src/http/error-answer.js';
import { createProcessLog, LineBatch, logRequest, requestLineWriter } from '../src/observability/log.js';
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

  it("is the same line from a logger's own writer, which follows the logger's level and bindings as they change", () => {
    const { logger, lines } = capture();
    const write = requestLineWriter(logger);
    write(LINE);
    logger.info({ ...LINE }, 'request');
    logger.level = 'warn';
    write(LINE);
    logger.level = 'info';
    logger.setBindings({ region: 'eu' });
    write(LINE);
    logger.info({ ...LINE }, 'request');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(lines[1]);
    expect(lines[2]).toBe(lines[3]);
    expect(JSON.parse(lines[2] as string)).toMatchObject({ region: 'eu', msg: 'request' });
    const redacted = capture({ redact: ['keyId'] });
    requestLineWriter(redacted.logger)(LINE);
    expect(JSON.parse(redacted.lines[0] as string)).toMatchObject({ keyId: '[Redacted]' });
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
      { ...LINE, operationName: 'x'.repeat(200_000) },
    ];
    // enough lines for several batches, some of them in one turn of the event loop
    for (let i = 0; i < 3_000; i++) lines.push({ ...LINE, durationMs: Math.round(i * 7.31) / 100, operationName: i % 7 === 0 ? `ü${i}` : `Op${i}` });
    // the server's own writer for its logger, logRequest() for the child; the time as pino's default writes it
    const write = requestLineWriter(log.logger);
    const before = Date.now();
    for (const [i, line] of lines.entries()) {
      const logger = i % 5 === 0 ? child : log.logger;
      if (logger === child) logRequest(logger, line);
      else write(line);
      logger.info({ ...line }, 'request');
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const after = Date.now();
    // close() ends sonic-boom, which closes the file
    await log.close();
    const written = fs.readFileSync(file, 'utf8').split('\n');
    fs.rmSync(dir, { recursive: true, force: true });
    expect(written.pop()).toBe('');
    expect(written).toHaveLength(2 * lines.length);
    for (const line of written) expect(Number(/^\{"level":30,"time":(\d+),/.exec(line)?.[1])).toSatisfy((time: number) => time >= before && time <= after);
    // the two lines of a pair were written a millisecond apart at most
    const untimed = written.map((line) => line.replace(/^\{"level":30,"time":\d+,/, '{"level":30,'));
    for (let i = 0; i < lines.length; i++) expect(untimed[2 * i], String(i)).toBe(untimed[2 * i + 1]);
    expect(JSON.parse(written[2] as string)).toMatchObject({ operationName: 'a "quoted"\nname\\ \u0001 ünï €', durationMs: null, msg: 'request' });
    expect(JSON.parse(written[10] as string)).toMatchObject({ route: 'ü', operationName: 'Op1', msg: 'request' });
  });

  it('writes every line in order into a pipe whose reader falls behind (partial writes, EAGAIN), reusing each buffer only once it is out', async () => {
    // the reader starts late: the pipe fills, sonic-boom's writes come back partial or EAGAIN and are retried
    const reader = spawn('sh', ['-c', 'sleep 0.3; cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
    // listened for from the start: closing the log closes the pipe, and cat may exit before the end of the test looks
    const exited = once(reader, 'exit');
    await once(reader, 'spawn');
    const chunks: Buffer[] = [];
    reader.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const log = createProcessLog('info', (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd);
    const write = requestLineWriter(log.logger);
    const expected: string[] = [];
    for (let i = 0; i < 8_000; i++) {
      // every line different, so a buffer overwritten before it was out shows
      const line = { ...LINE, requestId: `4c117ada-0000-4000-8000-${String(i).padStart(12, '0')}`, sqlStatements: i };
      write(line);
      expected.push(line.requestId);
      if (i % 400 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await log.close();
    reader.stdin.destroy();
    await exited;
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((line) => JSON.parse(line) as { requestId: string; sqlStatements: number });
    expect(parsed.map((line) => line.requestId)).toEqual(expected);
    expect(parsed.every((line, i) => line.sqlStatements === i)).toBe(true);
  });
});

describe("the process log's batch", () => {
  it('uses a buffer again only once sonic-boom has written all of it, however its writes were split', () => {
    // a destination that writes late and in pieces, as a full pipe makes sonic-boom do
    const handed: { bytes: Buffer; copy: Buffer }[] = [];
    const batch = new LineBatch((bytes) => handed.push({ bytes, copy: Buffer.from(bytes) }));
    const log = pino({ level: 'info' }, batch);
    const write = requestLineWriter(log);
    let written = 0;
    let outstanding = 0;
    const writeOut = (count: number) => {
      // what sonic-boom writes out must still be what it was handed
      let left = count;
      while (left > 0) {
        const oldest = handed[0] as { bytes: Buffer; copy: Buffer };
        const part = Math.min(left, oldest.bytes.length - written);
        expect(oldest.bytes.subarray(written, written + part).equals(oldest.copy.subarray(written, written + part))).toBe(true);
        written += part;
        left -= part;
        if (written === oldest.bytes.length) {
          handed.shift();
          written = 0;
        }
      }
      outstanding -= count;
      batch.written(count);
    };
    for (let i = 0; i < 20_000; i++) {
      write({ ...LINE, sqlStatements: i });
      if (i % 100 === 99) batch.handOver();
      outstanding = handed.reduce((sum, h) => sum + h.bytes.length, 0) - written;
      // sonic-boom falls behind by up to three buffers, then catches up in uneven pieces
      if (i % 37 === 0 && outstanding > 0) writeOut(Math.max(1, Math.floor(outstanding / 3)));
    }
    batch.handOver();
    while (handed.length > 0) writeOut(Math.min(7_777, (handed[0] as { bytes: Buffer }).bytes.length - written));
    expect(outstanding).toBe(0);
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
