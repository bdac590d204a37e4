import { once } from 'node:events';
import pino from 'pino';
import type { BaseLogger, Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * The log of a server process: JSON lines on stdout, written by pino through
 * its asynchronous destination (sonic-boom with `sync: false`, in its buffer
 * mode), so no line costs a system call on the event loop. Lines are gathered
 * as bytes (LineBatch) and handed to sonic-boom together, HANDOVER_BYTES at a
 * time or HANDOVER_DELAY_MS after the first of them, whichever comes first:
 * each of sonic-boom's writes is a trip through libuv's thread pool and back,
 * which at one line per request cost point lookups a quarter of their
 * throughput on a quiet machine, and line by line it measured the byte
 * length of its whole pending text on every write (docs/benchmarks.md).
 * Lines still pending must be written before the process ends: close() on a
 * graceful shutdown, flushSync() on a crash.
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
  const destination = pino.destination({ dest: fd, sync: false, minLength: 0, contentMode: 'buffer' });
  // in buffer mode sonic-boom's write() takes a Buffer, which its types do not say
  const batch = new LineBatch((bytes) => destination.write(bytes as unknown as string));
  // sonic-boom tells each write's byte count: the batch takes back a buffer once all of it is out
  destination.on('write', (written: number) => batch.written(written));
  const handOver = () => batch.handOver();
  const logger = pino({ level }, batch);
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
 * `logger.info()`. On a server process's own log (createProcessLog) the same
 * bytes go straight into its batch, with no string built for the line.
 * A logger that logs many requests (not a child per request) takes
 * requestLineWriter() instead, which reads all that once.
 */
export function logRequest(logger: Pick<BaseLogger, 'info' | 'level'>, line: RequestLine): void {
  if (logsRequests(logger)) writeLine(logger, lineShape(logger, false), line);
}

/**
 * logRequest() for one long-lived logger (a server's own): what the logger
 * puts around a line's fields is read from it once, as bytes where its batch
 * takes them, not on every request; only its bindings are checked again
 * (pino's setBindings() changes them). Reading pino's internals on each line
 * went through V8's megamorphic lookups (perf): with them and the constants'
 * copying, a line cost 1.3 to 1.6 µs in a loop, against 1.1 to 1.3 this way
 * (bench/log-line.mjs, docs/benchmarks.md).
 */
export function requestLineWriter(logger: Pick<BaseLogger, 'info' | 'level'>): (line: RequestLine) => void {
  const internals = logger as unknown as PinoInternals;
  let shape = lineShape(logger, true);
  return (line) => {
    if (!logsRequests(logger)) return;
    if (shape !== undefined && shape.chindings !== internals[CHINDINGS]) shape = lineShape(logger, true);
    writeLine(logger, shape, line);
  };
}

/** What a logger that writes plain lines (writesPlainLines) puts around a request line's fields. */
interface LineShape {
  readonly stream: { write(text: string): unknown };
  /** The level label's part of the line: `{"level":30`. */
  readonly levelPrefix: string;
  /** The logger's time function: `,"time":…` */
  readonly time: () => string;
  /** The logger's bindings: `,"pid":…,"hostname":…` and a child's own. */
  readonly chindings: string;
  /** The key of the message ("msg") and the line's end (`}` and a newline). */
  readonly messageKey: string;
  readonly end: string;
  /** Whether the time is pino's default, epoch milliseconds: a batch writes `,"time":` and the digits of Date.now(). */
  readonly epochTime: boolean;
  /** For a batch, in a long-lived logger's shape (requestLineWriter), as UTF-8: the level label (with `,"time":` when epochTime), the bindings, and the message with the line's end. */
  readonly bytes?: { readonly head: Buffer; readonly chindings: Buffer; readonly tail: Buffer };
}

/** The shape of `logger`'s request lines, with its bytes when `withBytes`; undefined for a logger whose lines are not pino's default rendering. */
function lineShape(logger: Pick<BaseLogger, 'info' | 'level'>, withBytes: boolean): LineShape | undefined {
  const internals = logger as unknown as PinoInternals;
  const stream = internals[STREAM] as { write(text: string): unknown; [key: symbol]: unknown };
  if (!writesPlainLines(internals, stream)) return undefined;
  const levelPrefix = (internals[LEVEL_PREFIXES] as Record<number, string>)[INFO] as string;
  const time = internals[TIME] as () => string;
  const chindings = internals[CHINDINGS] as string;
  const messageKey = internals[MESSAGE_KEY] as string;
  const end = internals[END] as string;
  const epochTime = time === pino.stdTimeFunctions.epochTime;
  const shape = { stream, levelPrefix, time, chindings, messageKey, end, epochTime };
  if (!withBytes) return shape;
  const head = Buffer.from(epochTime ? `${levelPrefix},"time":` : levelPrefix, 'utf8');
  const tail = Buffer.from(`,${jsonString(messageKey)}:"request"${end}`, 'utf8');
  return { ...shape, bytes: { head, chindings: Buffer.from(chindings, 'utf8'), tail } };
}

function writeLine(logger: Pick<BaseLogger, 'info'>, shape: LineShape | undefined, line: RequestLine): void {
  if (shape === undefined) {
    logger.info({ ...line }, 'request');
    return;
  }
  const { stream } = shape;
  // a server process's own log takes the line's bytes, with no string built; any other stream takes its text
  if (stream instanceof LineBatch && stream.writeRequestLine(shape, line)) return;
  const requestId = line.requestId === undefined ? '' : `,"requestId":${jsonString(line.requestId)}`;
  const clientAddress = line.clientAddress === undefined ? '' : `,"clientAddress":${jsonString(line.clientAddress)}`;
  const keyId = line.keyId === undefined ? '' : `,"keyId":${jsonString(line.keyId)}`;
  const company = line.company === undefined ? '' : `,"company":${jsonString(line.company)}`;
  const operationName = line.operationName === undefined ? '' : `,"operationName":${jsonString(line.operationName)}`;
  stream.write(
    `${shape.levelPrefix}${shape.time()}${shape.chindings}${requestId},"method":${jsonString(line.method)},"path":${jsonString(line.path)}${clientAddress},"status":${jsonNumber(line.status)},"durationMs":${jsonNumber(line.durationMs)}${keyId}${company}${operationName},"sqlStatements":${jsonNumber(line.sqlStatements)},${jsonString(shape.messageKey)}:"request"${shape.end}`,
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
 * A number of the line (a duration, a status, a count) as pino writes it
 * (String(value); null when not finite). A value in hundredths, as the
 * request line's durations are, is written from its integer parts: String() of a fraction misses V8's number-to-string
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

/**
 * How many bytes of lines are gathered before they are handed to sonic-boom
 * (at the end of that turn of the event loop). Each hand-over is a write
 * through libuv's thread pool, a thread woken on a busy machine: at 16 KiB
 * (about 50 request lines) that cost a point lookup 2 to 3 µs of a worker's
 * CPU; at 256 KiB it is lost in the noise (bench/server-cpu.mjs,
 * docs/benchmarks.md). A busy server reaches it in about 50 ms, as a quiet one
 * reaches HANDOVER_DELAY_MS.
 */
const HANDOVER_BYTES = 256 * 1024;
/** The size of a batch's buffer; a line that could need more than its room left is preceded by a hand-over, one longer than all of it written alone. */
const SLAB_BYTES = 512 * 1024;
/** How many written-out slabs a batch keeps for its next lines: with the one being filled and the one being written, 2 MiB while stdout keeps up. */
const SPARE_SLABS = 2;
/** How long a line may wait to be handed over when fewer than HANDOVER_BYTES are pending: a quiet server's lines still appear at once to a person. */
const HANDOVER_DELAY_MS = 50;

/**
 * pino's stream in a server process: lines are written as bytes into one
 * buffer, handed to sonic-boom (in its buffer mode) as they are: at the end
 * of the turn in which HANDOVER_BYTES are pending, else HANDOVER_DELAY_MS
 * after the first pending line. A request's line is written into the buffer
 * field by field (writeRequestLine), with no string built for it: a line as
 * a string was about 1.4 kB of garbage per request (the template's pieces),
 * then copied once more to be gathered and once more to be encoded.
 * Exported for its tests; a server's log is made by createProcessLog().
 */
export class LineBatch {
  private slab: Buffer | undefined;
  private used = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private now = Number.NaN;
  private nowText = '';
  /** What was handed to sonic-boom and is not written yet, oldest first, and how much of the oldest is. */
  private readonly unwritten: { readonly bytes: Buffer; readonly slab: Buffer | undefined }[] = [];
  private writtenOfOldest = 0;
  /** Slabs written out, for the next lines: a new one for every hand-over was garbage the size of all lines. */
  private readonly spare: Buffer[] = [];
  private readonly handOverNow = () => this.handOver();

  constructor(private readonly destination: (bytes: Buffer) => unknown) {}

  /** pino's own lines (every line but the request lines). */
  write(line: string): void {
    // at most 3 bytes of UTF-8 per UTF-16 unit
    if (line.length * 3 > SLAB_BYTES) {
      this.handOver();
      this.send(Buffer.from(line, 'utf8'), undefined);
      return;
    }
    const slab = this.room(line.length * 3);
    this.used = text(slab, this.used, line);
    this.pending();
  }

  /**
   * Writes a request's line: the bytes of the template in writeLine(). False,
   * with nothing written, when a field needs more room than a line may take
   * (the caller writes the line as a string then).
   */
  writeRequestLine(shape: LineShape, line: RequestLine): boolean {
    const { bytes } = shape;
    const time = shape.epochTime ? undefined : shape.time();
    const fieldChars = (line.requestId?.length ?? 0) + line.method.length + line.path.length + (line.clientAddress?.length ?? 0) + (line.keyId?.length ?? 0) + (line.company?.length ?? 0) + (line.operationName?.length ?? 0);
    const constantBytes =
      bytes === undefined ? 3 * (shape.levelPrefix.length + shape.chindings.length + shape.messageKey.length + shape.end.length) : bytes.head.length + bytes.chindings.length + bytes.tail.length;
    // 6 bytes for a character escaped as \uXXXX, 3 for one written as UTF-8; the names, quotes and numbers (four of at most 24 characters) in 300
    const bound = 6 * fieldChars + constantBytes + 3 * (time?.length ?? 0) + 300;
    if (bound > SLAB_BYTES) return false;
    const slab = this.room(bound);
    let at = bytes === undefined ? text(slab, this.used, shape.levelPrefix) : copy(slab, this.used, bytes.head);
    if (bytes === undefined && time === undefined) at = ascii(slab, at, ',"time":');
    at = time === undefined ? ascii(slab, at, this.epochMilliseconds()) : text(slab, at, time);
    at = bytes === undefined ? text(slab, at, shape.chindings) : copy(slab, at, bytes.chindings);
    if (line.requestId !== undefined) at = stringField(slab, at, ',"requestId":', line.requestId);
    at = stringField(slab, at, ',"method":', line.method);
    at = stringField(slab, at, ',"path":', line.path);
    if (line.clientAddress !== undefined) at = stringField(slab, at, ',"clientAddress":', line.clientAddress);
    at = ascii(slab, ascii(slab, at, ',"status":'), jsonNumber(line.status));
    at = ascii(slab, ascii(slab, at, ',"durationMs":'), jsonNumber(line.durationMs));
    if (line.keyId !== undefined) at = stringField(slab, at, ',"keyId":', line.keyId);
    if (line.company !== undefined) at = stringField(slab, at, ',"company":', line.company);
    if (line.operationName !== undefined) at = stringField(slab, at, ',"operationName":', line.operationName);
    at = ascii(slab, ascii(slab, at, ',"sqlStatements":'), jsonNumber(line.sqlStatements));
    if (bytes === undefined) {
      slab[at++] = 0x2c; // ,
      at = jsonStringInto(slab, at, shape.messageKey);
      this.used = text(slab, ascii(slab, at, ':"request"'), shape.end);
    } else {
      this.used = copy(slab, at, bytes.tail);
    }
    this.pending();
    return true;
  }

  /** Date.now() as text, made once a millisecond: some 20 lines a millisecond share it in a busy server. */
  private epochMilliseconds(): string {
    const now = Date.now();
    if (now !== this.now) {
      this.now = now;
      this.nowText = String(now);
    }
    return this.nowText;
  }

  /** Hands every pending line to sonic-boom now. */
  handOver(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    if (this.slab === undefined || this.used === 0) return;
    // sonic-boom keeps the buffer until it is written: the next lines go into another
    const { slab, used } = this;
    this.slab = undefined;
    this.used = 0;
    this.send(slab.subarray(0, used), slab);
  }

  /**
   * sonic-boom wrote `count` more bytes of what it was handed (its 'write'
   * event, in order, partial writes included): the slabs now written out
   * whole are kept for the next lines.
   */
  written(count: number): void {
    let done = this.writtenOfOldest + count;
    for (let oldest = this.unwritten[0]; oldest !== undefined && done >= oldest.bytes.length; oldest = this.unwritten[0]) {
      this.unwritten.shift();
      done -= oldest.bytes.length;
      if (oldest.slab !== undefined && this.spare.length < SPARE_SLABS) this.spare.push(oldest.slab);
    }
    this.writtenOfOldest = done;
  }

  private send(bytes: Buffer, slab: Buffer | undefined): void {
    this.unwritten.push({ bytes, slab });
    this.destination(bytes);
  }

  /** The buffer, with room for `bytes` more: the pending lines are handed over first when it has not. */
  private room(bytes: number): Buffer {
    if (this.slab !== undefined && this.used + bytes > SLAB_BYTES) this.handOver();
    if (this.slab === undefined) {
      this.slab = this.spare.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    return this.slab;
  }

  private pending(): void {
    // unref: a pending line does not keep the process alive; the exit hook writes it
    if (this.timer === undefined) this.timer = setTimeout(this.handOverNow, HANDOVER_DELAY_MS).unref();
    if (this.used >= HANDOVER_BYTES) this.immediate ??= setImmediate(this.handOverNow);
  }
}

/** Writes `value`, known to be printable ASCII (the names and numbers of the line), at `at`; returns the end. */
function ascii(slab: Buffer, at: number, value: string): number {
  for (let i = 0; i < value.length; i++) slab[at + i] = value.charCodeAt(i);
  return at + value.length;
}

/** Writes `value` as UTF-8 at `at` (in a loop while it is ASCII, as it nearly always is); returns the end. */
function text(slab: Buffer, at: number, value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x7f) return at + slab.write(value, at, 'utf8');
    slab[at + i] = c;
  }
  return at + value.length;
}

/** Writes `bytes` at `at`; returns the end. */
function copy(slab: Buffer, at: number, bytes: Buffer): number {
  slab.set(bytes, at);
  return at + bytes.length;
}

/** Writes `name` (printable ASCII, with its colon) and `value` as a JSON string at `at`; returns the end. */
function stringField(slab: Buffer, at: number, name: string, value: string): number {
  return jsonStringInto(slab, ascii(slab, at, name), value);
}

/** Writes `value` as a JSON string at `at`, the bytes of jsonString(value); returns the end. */
function jsonStringInto(slab: Buffer, at: number, value: string): number {
  slab[at] = 0x22;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // anything JSON escapes, and anything beyond ASCII: JSON.stringify's bytes, as jsonString writes them
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return at + slab.write(JSON.stringify(value), at, 'utf8');
    slab[at + 1 + i] = c;
  }
  slab[at + 1 + value.length] = 0x22;
  return at + value.length + 2;
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
