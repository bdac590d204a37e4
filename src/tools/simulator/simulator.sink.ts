import { promisify } from 'node:util';
import { constants as zlibConstants, gzip } from 'node:zlib';
import { AppError } from '../../kernel/errors.js';
import { MAX_REPORTS_PER_REQUEST } from '../../ingest/report.limits.js';
import type { Report } from '../../ingest/report.protocol.js';
import type { SimulatedReport } from './simulator.report.js';

const gzipAsync = promisify(gzip);

/** A report the server refused, with the server's reason. */
export interface RejectedReport {
  readonly reportId: string;
  readonly serialNumber: string;
  readonly code: string;
  readonly path: string;
  readonly message: string;
}

/** What the server answered for a number of reports, summed over batches. */
export interface SendResult {
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: readonly RejectedReport[];
}

/** Where simulated reports go: over HTTP to a server, or straight into a process's ingest service. */
export interface ReportSink<R extends Report = SimulatedReport> {
  /**
   * Delivers the reports, in batches as the sink likes, and resolves with what
   * was accepted, seen before, or rejected. Rejects when delivery failed for
   * good (the request itself was refused, or retries ran out).
   */
  send(reports: readonly R[]): Promise<SendResult>;
}

/** How the HTTP sink posts. */
export interface HttpSinkOptions {
  /** The server's base URL; reports go to `${url}/api/v1/reports`. */
  readonly url: string;
  /** An API key with the `ingest` scope. */
  readonly key: string;
  /** Reports per request, 1 to 500 (default 100). */
  readonly batchSize?: number;
  /** Requests in flight at once (default 4). */
  readonly concurrency?: number;
  /** Attempts per batch before giving up (default 8). */
  readonly maxAttempts?: number;
  /** Stops waiting between attempts (the send then rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /** Called before each wait for a retry, e.g. to log it. */
  readonly onRetry?: (info: { readonly attempt: number; readonly reason: string; readonly waitMs: number }) => void;
}

const MAX_WAIT_MS = 60_000;

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s ... up to 30 s. */
function backoffMs(attempt: number): number {
  return Math.min(30_000, 500 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}

/** `Retry-After` in milliseconds (seconds or an HTTP-date), capped at a minute; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, ms)) : undefined;
}

interface Answer {
  readonly accepted?: unknown;
  readonly duplicates?: unknown;
  readonly rejected?: readonly { index?: unknown; code?: unknown; path?: unknown; message?: unknown }[];
}

function readAnswer(answer: Answer, batch: readonly Report[]): SendResult {
  const rejected: RejectedReport[] = (answer.rejected ?? []).map((r) => {
    const report = typeof r.index === 'number' ? batch[r.index] : undefined;
    return {
      reportId: report?.reportId ?? '',
      serialNumber: report?.serialNumber ?? '',
      code: String(r.code ?? ''),
      path: String(r.path ?? ''),
      message: String(r.message ?? ''),
    };
  });
  return { accepted: Number(answer.accepted ?? 0), duplicates: Number(answer.duplicates ?? 0), rejected };
}

/** The message of a refused request: the first error's message in either of the API's error shapes. */
async function refusal(response: Response): Promise<AppError> {
  const text = await response.text();
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { errors?: { message?: string }[]; detail?: string; title?: string };
    message = body.errors?.[0]?.message ?? body.detail ?? body.title ?? message;
  } catch {
    // not JSON: show the text as it came
  }
  const code = response.status === 401 ? 'UNAUTHENTICATED' : response.status === 403 ? 'FORBIDDEN' : 'BAD_REQUEST';
  return new AppError(code, `the server refused the reports with HTTP ${response.status}: ${message}`);
}

/**
 * A sink that posts to `POST /api/v1/reports` as the report protocol says:
 * gzip-compressed JSON batches with the key as a bearer token, a bounded
 * number in flight. Network errors, 429 (after `Retry-After`) and 5xx are
 * retried with the same reports, so the same reportIds (the server counts
 * them as duplicates if the first try was stored after all); other refusals
 * (401, 403, 400, 413) end the send at once.
 */
export function createHttpSink(options: HttpSinkOptions): ReportSink<Report> {
  const endpoint = `${options.url.replace(/\/+$/, '')}/api/v1/reports`;
  const batchSize = Math.min(MAX_REPORTS_PER_REQUEST, Math.max(1, options.batchSize ?? 100));
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' };

  async function post(batch: readonly Report[]): Promise<SendResult> {
    // the fastest level: half the CPU of the default for bodies 40% larger (about 750 bytes a report)
    const body = await gzipAsync(JSON.stringify({ reports: batch }), { level: zlibConstants.Z_BEST_SPEED });
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let waitMs = backoffMs(attempt);
      try {
        const response = await fetch(endpoint, { method: 'POST', headers, body });
        if (response.status === 200) return readAnswer((await response.json()) as Answer, batch);
        if (response.status !== 429 && response.status < 500) throw await refusal(response);
        await response.body?.cancel();
        reason = `HTTP ${response.status}`;
        if (response.status === 429) waitMs = retryAfterMs(response.headers.get('retry-after')) ?? waitMs;
      } catch (error) {
        if (error instanceof AppError) throw error;
        reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      }
      if (attempt >= maxAttempts) {
        throw new AppError('SERVICE_UNAVAILABLE', `could not deliver reports to ${endpoint} after ${attempt} attempts (last: ${reason}).`);
      }
      options.onRetry?.({ attempt, reason, waitMs });
      await wait(waitMs, options.signal);
    }
  }

  return {
    async send(reports) {
      const batches: (readonly Report[])[] = [];
      for (let i = 0; i < reports.length; i += batchSize) batches.push(reports.slice(i, i + batchSize));
      const results = await mapBounded(batches, options.concurrency ?? 4, post);
      return sumResults(results);
    },
  };
}

/** The answers of several requests as one. */
function sumResults(results: readonly SendResult[]): SendResult {
  return {
    accepted: results.reduce((n, r) => n + r.accepted, 0),
    duplicates: results.reduce((n, r) => n + r.duplicates, 0),
    rejected: results.flatMap((r) => r.rejected),
  };
}

/** Runs `fn` over the items with at most `limit` at once, results in item order; the first failure stops new work. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * A sink that hands each report to the sink of its serial number (e.g. one
 * HTTP sink per company, each with that company's key), all at once.
 * Reports of a serial number without a sink are a bug of the caller.
 */
export function createRoutingSink(sinkOf: ReadonlyMap<string, ReportSink>): ReportSink {
  return {
    async send(reports) {
      const groups = new Map<ReportSink, SimulatedReport[]>();
      for (const report of reports) {
        const sink = sinkOf.get(report.serialNumber);
        if (sink === undefined) throw new Error(`simulator-routing-sink: no sink for serial number ${report.serialNumber}`);
        const group = groups.get(sink);
        if (group === undefined) groups.set(sink, [report]);
        else group.push(report);
      }
      const results = await Promise.all([...groups].map(([sink, group]) => sink.send(group)));
      return sumResults(results);
    },
  };
}

/** Stores a batch of reports in this process: the report service's ingest, bound to one caller. */
export type IngestFn = (reports: readonly Report[]) => Promise<{ readonly accepted: number; readonly duplicates: number; readonly rejected: Answer['rejected'] }>;

/**
 * A sink that hands reports straight to this process's ingest, no HTTP: in
 * batches of at most `batchSize` (default and at most 500, as over HTTP), one
 * after another with a turn of the event loop between, so a long backfill
 * leaves room for requests (SQLite runs a batch's transaction synchronously).
 * When `signal` aborts, the send rejects with its reason before the next
 * batch, so stopping waits for one batch at most.
 */
export function createIngestSink(ingest: IngestFn, options: { readonly batchSize?: number; readonly signal?: AbortSignal } = {}): ReportSink<Report> {
  const size = Math.min(MAX_REPORTS_PER_REQUEST, Math.max(1, options.batchSize ?? MAX_REPORTS_PER_REQUEST));
  return {
    async send(reports) {
      const results: SendResult[] = [];
      for (let i = 0; i < reports.length; i += size) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        options.signal?.throwIfAborted();
        const batch = reports.slice(i, i + size);
        results.push(readAnswer(await ingest(batch), batch));
      }
      return sumResults(results);
    },
  };
}
