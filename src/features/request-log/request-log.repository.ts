import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Store } from '../../db/store.js';
import type { ApiRequestLogSetTable } from './request-log.tables.js';
import { dropPartitionsBefore, ensureDailyPartitions } from '../../ingest/partitions.repository.js';
import { jsonEscaping } from '../../kernel/json-text.js';
import type { KeyRequest } from './request-log.writer.js';

/** The table the log is written to (migrations 0041 and 0042), partitioned by day on PostgreSQL; reads unnest it through the view `api_request_log`. */
export const REQUEST_LOG_TABLE = 'api_request_log_sets';

/** The most compact rows one INSERT writes (4 parameters each, well within SQLite's limit). */
const SET_BATCH = 500;

const DAY_MS = 86_400_000;

/** Which of a key's requests a read wants. */
export interface RequestFilter {
  /** ISO time: requests at or after it. */
  readonly since: string;
  /** Statuses from `status[0]` to `status[1]`, both included. */
  readonly status?: readonly [number, number];
  readonly operationName?: string;
}

/** A logged request as read back. */
export interface RequestRow {
  readonly requestedAt: string;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly operationName: string | null;
  readonly rootFields: string | null;
  readonly status: number;
  readonly errorCodes: string | null;
  readonly cost: number | null;
  readonly durationMs: number;
  readonly statements: number;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
}

/**
 * A key's requests of one UTC day, gathered for one compact row: each
 * request's own fields as its entry's JSON text, appended to `entries` (off
 * the JavaScript heap), the fields a script repeats as the index of a shape.
 */
interface OpenSet {
  readonly keyId: number;
  readonly day: number;
  first: number;
  last: number;
  /** Each shape's JSON text, in the order first seen; the row's `shapes`. */
  readonly shapes: string[];
  readonly shapeIds: Map<string, number>;
  /** The last request added, whose shape is `lastShape`: most requests repeat it. */
  lastRequest: KeyRequest | undefined;
  lastShape: number;
  readonly entries: EntryText;
}

/**
 * The entries of a compact row's `requests`, as JSON text (ASCII: numbers,
 * null and request ids, see entryText) in a Buffer that doubles as it fills.
 *
 * Why not arrays of the fields: a flush waits up to a second, through dozens
 * of the young generation's collections, and every one of them copied the
 * arrays gathered so far and each request's id (a string) until they were
 * promoted. In the benchmark (bench/run.mjs with --trace-gc), those copies
 * made each scavenge of a loaded worker 0.3 ms longer, about 1 µs a
 * request: more than the log's own work. A Buffer's bytes are not on the
 * heap the collector copies. Each entry is written in as it comes
 * (writeEntry), from a set's first: gathering a few hundred as one string
 * first (a rope of them) cost more, 2.4 ms a scavenge instead of 1.5, and
 * making each entry a string to copy in cost as much as the rest of a
 * request's logging. A set starts with a small Buffer (Node.js cuts those
 * from a shared slab), as most keys make a few requests a flush; the large
 * ones are used again (takeBuffer).
 */
class EntryText {
  // a set is made for its first entry
  #bytes = takeBuffer(FIRST_BYTES);
  #length = 0;

  /** Adds a request's entry, a comma before it but for the first. */
  append(msOfDay: number, request: KeyRequest, shape: number): void {
    this.#reserve(ENTRY_BYTES + request.requestId.length);
    const written = writeEntry(this.#bytes, this.#length, msOfDay, request, shape);
    if (written !== -1) {
      this.#length = written;
      return;
    }
    // an id to escape, or a number entryText writes otherwise (a fraction, a very large one)
    const text = entryText(msOfDay, request, shape);
    this.#reserve(text.length + 1);
    if (this.#length > 0) this.#bytes[this.#length++] = COMMA;
    this.#length += this.#bytes.write(text, this.#length, 'latin1');
  }

  /** Room for `bytes` more in the Buffer (a larger one, the entries copied over, when they do not fit). */
  #reserve(bytes: number): void {
    const current = this.#bytes;
    if (this.#length + bytes <= current.length) return;
    const grown = takeBuffer(Math.max(this.#length + bytes, current.length * 2));
    current.copy(grown, 0, 0, this.#length);
    giveBack(current);
    this.#bytes = grown;
  }

  /** The entries as a JSON array; its Buffer goes back to the spare ones, so this is the last call. */
  toJson(): string {
    const json = `[${this.#bytes.toString('latin1', 0, this.#length)}]`;
    giveBack(this.#bytes);
    return json;
  }
}

/** A set's first Buffer: about 15 entries. */
const FIRST_BYTES = 1_024;

/**
 * EntryText's spare Buffers, largest last, kept for the next flushes: a
 * Buffer's memory is freed only when the collector gets to its object,
 * which by then is old (it lived through a flush), so Buffers made anew
 * each flush piled up to tens of MB per process between old-generation
 * collections (the benchmark's peak RSS). At most SPARE_BYTES are kept.
 */
const spare: Buffer[] = [];
let spareBytes = 0;
const SPARE_BYTES = 4 * 1024 * 1024;

/** Buffers under this size are made anew each time (cut from Node.js's slab) and not kept. */
const SPARE_FROM = 16_384;

function takeBuffer(atLeast: number): Buffer {
  if (atLeast < SPARE_FROM) return Buffer.allocUnsafe(atLeast);
  const found = spare.findIndex((buffer) => buffer.length >= atLeast);
  if (found === -1) return Buffer.allocUnsafe(atLeast);
  const [buffer] = spare.splice(found, 1) as [Buffer];
  spareBytes -= buffer.length;
  return buffer;
}

function giveBack(buffer: Buffer): void {
  if (buffer.length < SPARE_FROM) return;
  // past SPARE_BYTES the largest are kept: a busy key's set needs one as large at the next flush
  while (spareBytes + buffer.length > SPARE_BYTES && spare.length > 0 && (spare[0] as Buffer).length < buffer.length) {
    spareBytes -= (spare.shift() as Buffer).length;
  }
  if (spareBytes + buffer.length > SPARE_BYTES) return;
  const at = spare.findIndex((kept) => kept.length > buffer.length);
  spare.splice(at === -1 ? spare.length : at, 0, buffer);
  spareBytes += buffer.length;
}

/** A request id written into JSON as it is (those netgraph makes or accepts: app.ts's REQUEST_ID_PATTERN); others are escaped. */
const PLAIN_REQUEST_ID = /^[A-Za-z0-9._:-]*$/;

/** Past U+007E: what a request id's JSON escapes, the entries being stored as latin1 bytes. */
const PAST_ASCII = /[\u007f-\uffff]/g;

/** A request's entry as JSON text: [ms of the day, request_id, shape, status, cost, duration_ms, statements]. */
function entryText(msOfDay: number, request: KeyRequest, shape: number): string {
  const id = PLAIN_REQUEST_ID.test(request.requestId) ? `"${request.requestId}"` : jsonEscaping(request.requestId, PAST_ASCII);
  const cost = request.cost === null ? null : Math.round(request.cost);
  const duration = Number.isFinite(request.durationMs) ? request.durationMs : null;
  return `[${msOfDay},${id},${shape},${request.status},${cost},${duration},${request.statements}]`;
}

const COMMA = 0x2c;
const QUOTE = 0x22;
/** The most bytes writeEntry writes besides the request id: 7 numbers of at most 16 digits, a fraction's point, brackets, quotes and commas. */
const ENTRY_BYTES = 7 * 16 + 16;
/** The largest whole number writeDigits writes (above, entryText's text is used). */
const MAX_DIGITS_VALUE = 999_999_999_999_999;
/** 1 for each character of PLAIN_REQUEST_ID's, by its code (up to 127; past it, undefined). */
const PLAIN_ID_CHARACTER = Uint8Array.from({ length: 128 }, (_, code) => (PLAIN_REQUEST_ID.test(String.fromCharCode(code)) ? 1 : 0));
/** null, as bytes. */
const NULL_BYTES = [0x6e, 0x75, 0x6c, 0x6c];

/**
 * Writes a request's entry into `bytes` at `start` (a comma first unless
 * `start` is 0, the set's first entry; the Buffer has room for ENTRY_BYTES
 * and the id) and returns where it ends: the same text as entryText,
 * without making it (the string, the check of the id by a regular
 * expression and the copy of the string into the Buffer cost about as
 * much as the rest of a request's logging). -1, with nothing meant to be
 * kept written, when the entry needs entryText: an id with a character
 * that is not plain, a number that is not a whole number in writeDigits'
 * range, a duration that is not in hundredths.
 */
function writeEntry(bytes: Buffer, start: number, msOfDay: number, request: KeyRequest, shape: number): number {
  let at = start;
  if (start > 0) bytes[at++] = COMMA;
  bytes[at++] = 0x5b;
  if ((at = writeDigits(bytes, at, msOfDay)) === -1) return -1;
  bytes[at++] = COMMA;
  bytes[at++] = QUOTE;
  const id = request.requestId;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (PLAIN_ID_CHARACTER[code] !== 1) return -1;
    bytes[at++] = code;
  }
  bytes[at++] = QUOTE;
  bytes[at++] = COMMA;
  if ((at = writeDigits(bytes, at, shape)) === -1) return -1;
  bytes[at++] = COMMA;
  if ((at = writeDigits(bytes, at, request.status)) === -1) return -1;
  bytes[at++] = COMMA;
  if (request.cost === null) {
    for (const byte of NULL_BYTES) bytes[at++] = byte;
  } else if ((at = writeDigits(bytes, at, Math.round(request.cost))) === -1) return -1;
  bytes[at++] = COMMA;
  if ((at = writeHundredths(bytes, at, request.durationMs)) === -1) return -1;
  bytes[at++] = COMMA;
  if ((at = writeDigits(bytes, at, request.statements)) === -1) return -1;
  bytes[at++] = 0x5d;
  return at;
}

/** A whole number from 0 to MAX_DIGITS_VALUE as its decimal digits, as String() writes it; -1 for any other number. */
function writeDigits(bytes: Buffer, start: number, value: number): number {
  if (!(Number.isInteger(value) && value >= 0 && value <= MAX_DIGITS_VALUE)) return -1;
  if (value > SMALL) {
    // above 32 bits: the high digits first, then the low nine, zero-padded
    const high = Math.floor(value / 1e9);
    return putDigits(bytes, writeDigits(bytes, start, high), value - high * 1e9, 9);
  }
  let digits = 1;
  while (digits < POWERS.length && value >= (POWERS[digits] as number)) digits += 1;
  return putDigits(bytes, start, value, digits);
}

/** The last `digits` decimal digits of `value` (at most SMALL), zero-padded, at `start`; returns where they end. */
function putDigits(bytes: Buffer, start: number, value: number, digits: number): number {
  let rest = value;
  for (let i = start + digits - 1; i >= start; i--) {
    const next = (rest / 10) | 0;
    bytes[i] = 0x30 + rest - next * 10;
    rest = next;
  }
  return start + digits;
}

/** The largest number writeDigits' loop takes as a 32-bit integer. */
const SMALL = 0x7fff_ffff;
/** 10^0 to 10^9: how many digits a number under SMALL has. */
const POWERS = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];

/**
 * A duration in hundredths of a ms (keyRequest's rounding) as String()
 * writes it: the whole part, then the fraction without trailing zeros;
 * -1 for a duration that is not (a fraction with more digits, a negative
 * or non-finite one, which entryText writes as null).
 */
function writeHundredths(bytes: Buffer, start: number, value: number): number {
  const hundredths = Math.round(value * 100);
  if (!(hundredths / 100 === value && hundredths >= 0 && hundredths <= MAX_DIGITS_VALUE)) return -1;
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths - whole * 100;
  let at = writeDigits(bytes, start, whole);
  if (fraction === 0) return at;
  bytes[at++] = 0x2e;
  bytes[at++] = 0x30 + Math.floor(fraction / 10);
  if (fraction % 10 !== 0) bytes[at++] = 0x30 + (fraction % 10);
  return at;
}

/** The days since the epoch below which a set's map key keeps keys and days apart (until the year 2243). */
const DAYS_PER_KEY = 100_000;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  // a query's root fields are its cached document's one list
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when two requests have the same shape: the fields a row keeps once (migration 0042). */
function sameShape(a: KeyRequest, b: KeyRequest): boolean {
  return (
    a.method === b.method &&
    a.path === b.path &&
    a.operationName === b.operationName &&
    a.clientAddress === b.clientAddress &&
    a.userAgent === b.userAgent &&
    sameList(a.rootFields, b.rootFields) &&
    sameList(a.errorCodes, b.errorCodes)
  );
}

/** A request's shape as its JSON text: [method, path, operation_name, root_fields, error_codes, client_address, user_agent]. */
function shapeText(r: KeyRequest): string {
  return JSON.stringify([
    r.method,
    r.path,
    r.operationName,
    r.rootFields.length === 0 ? null : r.rootFields.join(','),
    r.errorCodes.length === 0 ? null : r.errorCodes.join(','),
    r.clientAddress,
    r.userAgent,
  ]);
}

/**
 * Requests gathered into the compact rows of api_request_log_sets they are
 * written as (migration 0042): one row per key and UTC day (so that a row
 * lies in one day's partition and expires with it), its requests in the
 * order added, each as [ms of the day, request_id, shape, status, cost,
 * duration_ms, statements], where the time is the milliseconds since the
 * start of the row's day (toISOString would cost 1.1 µs) and `shape` the
 * index in the row's `shapes` of its other fields. add() is the writer's
 * record(): a comparison with the set's last request, and the entry's text
 * appended to its set's.
 */
export function createRequestSets() {
  let sets = new Map<number, OpenSet>();
  let size = 0;

  return {
    add(request: KeyRequest): void {
      const day = Math.floor(request.at / DAY_MS);
      const id = request.keyId * DAYS_PER_KEY + day;
      let set = sets.get(id);
      if (set === undefined) {
        set = { keyId: request.keyId, day, first: request.at, last: request.at, shapes: [], shapeIds: new Map(), lastRequest: undefined, lastShape: 0, entries: new EntryText() };
        sets.set(id, set);
      }
      if (request.at < set.first) set.first = request.at;
      if (request.at > set.last) set.last = request.at;
      if (set.lastRequest === undefined || !sameShape(set.lastRequest, request)) {
        const text = shapeText(request);
        let shape = set.shapeIds.get(text);
        if (shape === undefined) {
          shape = set.shapes.push(text) - 1;
          set.shapeIds.set(text, shape);
        }
        set.lastShape = shape;
      }
      set.lastRequest = request;
      set.entries.append(Math.floor(request.at) - day * DAY_MS, request, set.lastShape);
      size += 1;
    },

    /** How many requests are gathered. */
    get size(): number {
      return size;
    },

    /** The gathered requests as rows, and an empty gathering for the next ones. */
    take(): ApiRequestLogSetTable[] {
      const taken = sets;
      sets = new Map();
      size = 0;
      const rows: ApiRequestLogSetTable[] = [];
      for (const set of taken.values()) {
        rows.push({
          api_key_id: set.keyId,
          first_at: new Date(set.first).toISOString(),
          last_at: new Date(set.last).toISOString(),
          requests: set.entries.toJson(),
          shapes: `[${set.shapes.join(',')}]`,
        });
      }
      return rows;
    },
  };
}

export type RequestSets = ReturnType<typeof createRequestSets>;

/** The requests as the compact rows they are written as (createRequestSets). */
export function requestSets(requests: readonly KeyRequest[]): ApiRequestLogSetTable[] {
  const gathered = createRequestSets();
  for (const request of requests) gathered.add(request);
  return gathered.take();
}

/** SQL of the per-key request log: batched writes, a key's requests and hourly counts, retention. */
export function createRequestLogRepository(store: Store) {
  const { db, dialect } = store;

  const filtered = (keyId: number, filter: RequestFilter) => {
    // set_last_at first: whole compact rows older than the window are skipped through the index
    let query = db.selectFrom('api_request_log').where('api_key_id', '=', keyId).where('set_last_at', '>=', filter.since).where('requested_at', '>=', filter.since);
    if (filter.status !== undefined) query = query.where('status', '>=', filter.status[0]).where('status', '<=', filter.status[1]);
    if (filter.operationName !== undefined) query = query.where('operation_name', '=', filter.operationName);
    return query;
  };

  /**
   * One plain multi-row INSERT (SET_BATCH rows at most per statement, all in
   * one transaction when there are more): bound as arrays (the row writer's
   * form on PostgreSQL), each row's JSON text would be escaped again as an
   * array element, 4 µs a request.
   */
  const insertRows = async (sets: readonly ApiRequestLogSetTable[]): Promise<void> => {
    if (sets.length <= SET_BATCH) {
      if (sets.length > 0) await db.insertInto(REQUEST_LOG_TABLE).values(sets).execute();
      return;
    }
    await store.lockingTransaction(async (tx) => {
      for (let i = 0; i < sets.length; i += SET_BATCH) await tx.db.insertInto(REQUEST_LOG_TABLE).values(sets.slice(i, i + SET_BATCH)).execute();
    });
  };

  return {
    /**
     * Writes compact rows (createRequestSets), usually one per key and
     * flush (insertRows).
     */
    insertRows,

    /** Writes the requests as compact rows (requestSets). */
    insert(requests: readonly KeyRequest[]): Promise<void> {
      return insertRows(requestSets(requests));
    },

    /** The key's requests that match, newest first, `limit` of them after skipping `offset`. */
    async list(keyId: number, filter: RequestFilter, limit: number, offset: number): Promise<RequestRow[]> {
      return filtered(keyId, filter)
        .select([
          'requested_at as requestedAt',
          'request_id as requestId',
          'method',
          'path',
          'operation_name as operationName',
          'root_fields as rootFields',
          'status',
          'error_codes as errorCodes',
          'cost',
          'duration_ms as durationMs',
          'statements',
          'client_address as clientAddress',
          'user_agent as userAgent',
        ])
        .orderBy('requested_at', 'desc')
        .orderBy('request_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    /** How many of the key's requests that match there were per hour (Unix seconds of its start) and status. */
    async hourly(keyId: number, filter: RequestFilter): Promise<{ hour: number; status: number; count: number }[]> {
      const hour = sql<number>`${sql.raw(dialect.epochBucket('requested_at', '3600'))}`;
      const found = await filtered(keyId, filter)
        .select([hour.as('hour'), 'status', (eb) => eb.fn.countAll<number>().as('count')])
        .groupBy([hour, 'status'])
        .orderBy('hour')
        .orderBy('status')
        .execute();
      return found.map((row) => ({ hour: Number(row.hour), status: Number(row.status), count: Number(row.count) }));
    },

    /** PostgreSQL: the day partitions from `fromMs` to `toMs` (partitions.repository.ts). */
    async preparePartitions(fromMs: number, toMs: number): Promise<void> {
      await ensureDailyPartitions(db as Kysely<unknown>, REQUEST_LOG_TABLE, fromMs, toMs);
    },

    /** PostgreSQL: drops the whole days before `cutoffMs`; returns how many. */
    async dropPartitionsBefore(cutoffMs: number): Promise<number> {
      return dropPartitionsBefore(db as Kysely<unknown>, REQUEST_LOG_TABLE, cutoffMs);
    },

    /** Deletes up to `limit` compact rows whose requests are all older than `before`; returns how many went. */
    async deleteBatch(before: string, limit: number): Promise<number> {
      const locator = sql.raw(dialect.rowLocator);
      const result = await sql`DELETE FROM api_request_log_sets WHERE (${locator}) IN (SELECT ${locator} FROM api_request_log_sets WHERE last_at < ${before} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export type RequestLogRepository = ReturnType<typeof createRequestLogRepository>;
