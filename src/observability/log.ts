import { once } from 'node:events';
import pino from 'pino';
import type { BaseLogger, Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * The log of a server process: JSON lines on stdout, written by pino through
 * its asynchronous destination (sonic-boom with `sync: false`), so no line
 * costs a system call on the event loop. Lines are gathered and handed to
 * sonic-boom together, HANDOVER_BYTES at a time or HANDOVER_DELAY_MS after
 * the first of them, whichever comes first: sonic-boom measures the byte
 * length of its whole pending buffer on every write it takes (a line cost
 * 3.6 µs of CPU against 1 µs batched, `node bench/log-line.mjs`), and each
 * of its writes is a trip through libuv's thread pool and back, which at one
 * line per request cost point lookups a quarter of their throughput on a
 * quiet machine (docs/benchmarks.md). Lines still pending must be written
 * before the process ends: close() on a graceful shutdown, flushSync() on a
 * crash.
 */
export interface ProcessLog {
  readonly logger: Logger;
  /** Writes every pending line, then stops logging (later lines are dropped): the last step of a graceful shutdown. */
  close(): Promise<void>;
  /** Writes every pending line before returning: for a crash, when the event loop will not run again. */
  flushSync(): void;
}

/** Creates the process's log at `level`, on file descriptor `fd` (stdout). */
export function createProcessLog(level: LogLevel, fd = 1): ProcessLog {
  // minLength 0: a batch is written as soon as no write is running, so a quiet server's lines appear at once
  const destination = pino.destination({ dest: fd, sync: false, minLength: 0 });
  const { batcher, handOver } = batchLines(destination);
  const logger = pino({ level }, batcher);
  let closed: Promise<void> | undefined;
  const flushSync = () => {
    // once close() began, end() writes what is left (and flushSync would throw on a closed destination)
    if (closed !== undefined) return;
    handOver();
    destination.flushSync();
  };
  // an exit by process.exit() anywhere: pino's own exit hook flushes sonic-boom, not the lines of this turn
  process.once('exit', flushSync);
  return {
    logger,
    flushSync,
    close() {
      closed ??= (async () => {
        process.off('exit', flushSync);
        // a line logged after end() would throw inside sonic-boom: nothing is logged from here on
        logger.level = 'silent';
        handOver();
        const finished = once(destination, 'close');
        destination.end();
        await finished;
      })();
      return closed;
    },
  };
}

/** The fields of the line each request is logged with (message "request", at info): docs/operations.md describes them. */
export interface RequestLine {
  /** Absent when the logger's own bindings carry it (a Fastify request's child logger). */
  readonly requestId?: string;
  readonly method: string;
  readonly path: string;
  readonly clientAddress: string | undefined;
  readonly status: number;
  readonly durationMs: number;
  readonly keyId: string | undefined;
  readonly company: string | undefined;
  readonly operationName: string | undefined;
  readonly sqlStatements: number;
}

const {
  chindingsSym: CHINDINGS,
  endSym: END,
  formattersSym: FORMATTERS,
  hooksSym: HOOKS,
  lsCacheSym: LEVEL_PREFIXES,
  messageKeySym: MESSAGE_KEY,
  mixinSym: MIXIN,
  needsMetadataGsym: NEEDS_METADATA,
  redactFmtSym: REDACTION,
  serializersSym: SERIALIZERS,
  streamSym: STREAM,
  stringifiersSym: STRINGIFIERS,
  timeSym: TIME,
} = pino.symbols;
const INFO = 30;
const REQUEST_FIELDS: readonly string[] = ['requestId', 'method', 'path', 'clientAddress', 'status', 'durationMs', 'keyId', 'company', 'operationName', 'sqlStatements'];
type PinoInternals = Record<symbol, unknown>;

/**
 * Logs a request's line at info: the bytes `logger.info(line, 'request')`
 * would write, from a template instead of pino's generic serializer, which
 * walks the object's keys, looks up a serializer and a stringifier for each
 * and quotes each string with JSON.stringify: 0.8 against 1.4 to 1.8 µs a
 * line in a loop, about half of what a line cost with its write
 * (`node bench/log-line.mjs`, docs/benchmarks.md). It reads the logger's own level
 * label, time, bindings, message key and stream (pino.symbols, pino's API
 * for integrations) and writes through its stream, so the line is the same
 * on every logger, child or not. A logger that changes lines (a log
 * formatter, a mixin, a message prefix, redaction, a serializer of one of
 * these fields, a hook, or a multistream that needs metadata) gets
 * `logger.info()`.
 */
export function logRequest(logger: Pick<BaseLogger, 'info' | 'level'>, line: RequestLine): void {
  if (!logsRequests(logger)) return;
  const internals = logger as unknown as PinoInternals;
  const stream = internals[STREAM] as { write(text: string): unknown; [key: symbol]: unknown };
  if (!writesPlainLines(internals, stream)) {
    logger.info({ ...line }, 'request');
    return;
  }
  const levelPrefixes = internals[LEVEL_PREFIXES] as Record<number, string>;
  const time = (internals[TIME] as () => string)();
  const requestId = line.requestId === undefined ? '' : `,"requestId":${jsonString(line.requestId)}`;
  const clientAddress = line.clientAddress === undefined ? '' : `,"clientAddress":${jsonString(line.clientAddress)}`;
  const keyId = line.keyId === undefined ? '' : `,"keyId":${jsonString(line.keyId)}`;
  const company = line.company === undefined ? '' : `,"company":${jsonString(line.company)}`;
  const operationName = line.operationName === undefined ? '' : `,"operationName":${jsonString(line.operationName)}`;
  stream.write(
    `${levelPrefixes[INFO]}${time}${internals[CHINDINGS] as string}${requestId},"method":${jsonString(line.method)},"path":${jsonString(line.path)}${clientAddress},"status":${line.status},"durationMs":${jsonNumber(line.durationMs)}${keyId}${company}${operationName},"sqlStatements":${line.sqlStatements},${jsonString(internals[MESSAGE_KEY] as string)}:"request"${internals[END] as string}`,
  );
}

/** True when `logger` writes request lines (its level is info or below): a hot path checks it before it gathers a line's fields. */
export function logsRequests(logger: Pick<BaseLogger, 'level'>): boolean {
  // a Fastify logger's type hides what every pino logger has
  return (logger as Logger).isLevelEnabled('info');
}

/** False for a logger whose lines are not pino's default rendering of the object given (see logRequest). */
function writesPlainLines(internals: PinoInternals, stream: Record<symbol, unknown>): boolean {
  const formatters = internals[FORMATTERS] as { log?: unknown };
  const serializers = internals[SERIALIZERS] as Record<string, unknown>;
  const stringifiers = internals[STRINGIFIERS] as Record<symbol, unknown>;
  const hooks = internals[HOOKS] as { logMethod?: unknown; streamWrite?: unknown };
  return (
    formatters.log === undefined &&
    internals[MIXIN] === undefined &&
    (internals as unknown as Logger).msgPrefix === undefined &&
    hooks.logMethod === undefined &&
    hooks.streamWrite === undefined &&
    stream[NEEDS_METADATA] !== true &&
    // redaction's stringifiers always include its formatter
    stringifiers[REDACTION] === undefined &&
    !REQUEST_FIELDS.some((field) => serializers[field] !== undefined)
  );
}

/** Any character a JSON string must escape, and anything beyond ASCII (left to JSON.stringify). */
const NEEDS_ESCAPING = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/** A string as JSON: quoted as it is when nothing in it needs escaping, which is 4x faster than JSON.stringify (45 against 190 ns for a UUID). */
function jsonString(value: string): string {
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * A duration as pino writes it (String(value); null when not finite). A
 * value in hundredths, as the request line's durations are, is written from
 * its integer parts: String() of a fraction misses V8's number-to-string
 * cache for nearly every request's new duration, and cost 0.6 µs a line in a
 * server's CPU profile (150 against 45 ns in a loop of distinct values).
 */
function jsonNumber(value: number): string {
  const hundredths = Math.round(value * 100);
  if (hundredths / 100 !== value || hundredths < 0 || hundredths >= 1e12) return Number.isFinite(value) ? String(value) : 'null';
  const whole = Math.trunc(hundredths / 100);
  const fraction = hundredths % 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

/** How many bytes of lines are gathered before they are handed to sonic-boom (at the end of that turn of the event loop). */
const HANDOVER_BYTES = 16 * 1024;
/** How long a line may wait to be handed over when fewer than HANDOVER_BYTES are pending: a quiet server's lines still appear at once to a person. */
const HANDOVER_DELAY_MS = 50;

/**
 * A stream for pino that gathers lines and writes them to `destination` as
 * one string: at the end of the turn in which HANDOVER_BYTES are pending,
 * else HANDOVER_DELAY_MS after the first pending line.
 */
function batchLines(destination: { write(text: string): unknown }): { batcher: { write(line: string): void }; handOver(): void } {
  let pending: string[] = [];
  // string length, not bytes: a cheap bound that is exact for the ASCII of almost every line
  let pendingLength = 0;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const handOver = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingLength = 0;
    destination.write(text);
  };
  const batcher = {
    write(line: string) {
      pending.push(line);
      pendingLength += line.length;
      // unref: a pending line does not keep the process alive; the exit hook writes it
      if (timer === undefined) timer = setTimeout(handOver, HANDOVER_DELAY_MS).unref();
      if (pendingLength >= HANDOVER_BYTES && immediate === undefined) immediate = setImmediate(handOver);
    },
  };
  return { batcher, handOver };
}

/**
 * Makes an uncaught exception (or an unhandled rejection, which Node turns
 * into one) end the process with exit code 1 after logging it at `fatal` and
 * writing every buffered line synchronously: nothing logged before the crash
 * is lost. Returns how to remove the handler.
 */
export function exitOnCrash(log: ProcessLog, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const crash = (error: Error) => {
    try {
      log.logger.fatal({ err: error }, 'uncaught exception; exiting');
      log.flushSync();
    } finally {
      exit(1);
    }
  };
  process.on('uncaughtException', crash);
  return () => process.off('uncaughtException', crash);
}
