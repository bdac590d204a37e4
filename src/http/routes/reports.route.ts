import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { AppError, ERROR_CODES } from '../../kernel/errors.js';
import type { ErrorCode } from '../../kernel/errors.js';
import { createAdmission } from '../admission.js';
import type { Admission } from '../admission.js';
import { JSON_TYPE, errorAnswer, sendAnswer } from '../answer.js';
import type { Answer } from '../answer.js';
import { answerForError } from '../error-answer.js';
import { parseJsonBodyText, useJsonParser } from '../json-body.js';
import type { ParsedJsonBody } from '../json-body.js';
import { UNAUTHORIZED } from '../meter-answers.js';
import type { ApiKeyService } from '../../features/api-key/api-key.service.js';
import type { LimitsService } from '../../platform/limits/limits.service.js';
import { findPrototypeKey, prototypeKeyMessage } from '../../kernel/json-input.js';
import type { Rejection } from '../../ingest/report.parse.js';
import { MAX_REPORTS_PER_REQUEST } from '../../ingest/report.limits.js';
import type { IngestFigures, ReportService } from '../../ingest/report.service.js';
import type { CollectorTargetService } from '../../features/collector-target/collector-target.service.js';
import type { CollectorRangeService } from '../../features/collector-range/collector-range.service.js';
import { registerCollectorTargetsRoute } from './collector-targets.route.js';
import { registerCollectorDiscoveredRoute } from './collector-discovered.route.js';
import type { DiscoveredDeviceService } from '../../features/discovered-device/discovered-device.service.js';
import { admitOnRequest, limitHeadersOnSend } from './admission.hooks.js';

export const REPORTS_PATH = '/api/v1/reports';
/** The largest body, after decompression. */
export const REPORTS_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

const gunzipAsync = promisify(gunzip);

/** What the report route is built from. */
export interface ReportRouteDeps {
  readonly apiKeys: ApiKeyService;
  readonly reports: ReportService;
  /** The collectors' targets, answered on the reports' admission (collector-targets.route.ts). */
  readonly collectorTargets: CollectorTargetService;
  /** The collectors' discovery ranges, answered on the reports' admission too. */
  readonly collectorRanges: CollectorRangeService;
  /** What collectors' discovery sweeps found, posted on the reports' admission (collector-discovered.route.ts). */
  readonly discoveredDevices: DiscoveredDeviceService;
  /** The per-key report limit: one unit per report. */
  readonly limits: LimitsService;
  readonly classifyError: (error: unknown) => unknown;
  readonly onLimited?: () => void;
  /** Gets each committed batch's figures (the metrics' reports counters and ingest lag). */
  readonly onIngested?: (figures: IngestFigures) => void;
}

/**
 * POST /api/v1/reports (docs/reports.md): an ingest key, then its report
 * limit, then the batch. The key and its scope are checked before the body
 * is read; the answer comes once every accepted report is committed.
 */
export function registerReportRoutes(app: FastifyInstance, deps: ReportRouteDeps): void {
  const admission = createAdmission({
    apiKeys: deps.apiKeys,
    limits: deps.limits,
    unit: 'reports',
    refuseScope: (scope) =>
      scope === 'ingest' ? undefined : failure('FORBIDDEN', `This API key has scope ${scope}: reports, collector targets and ranges, and discovered devices need a key created with --scope ingest.`),
    // ingest runs no statement that checks the key: a cached key is confirmed at once
    confirmCachedKey: true,
    ...(deps.onLimited ? { onLimited: deps.onLimited } : {}),
  });
  // its own scope, for its own JSON parser: a prototype key refuses only the report that holds it
  void app.register(async (scope) => {
    useJsonParser(scope, parseJsonBodyText);
    registerRoutes(scope, deps, admission);
    registerCollectorTargetsRoute(scope, admission, deps.collectorTargets, deps.collectorRanges);
    registerCollectorDiscoveredRoute(scope, admission, deps.discoveredDevices, deps.classifyError);
  });
}

function registerRoutes(app: FastifyInstance, deps: ReportRouteDeps, admission: Admission): void {
  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: REPORTS_PATH,
    exposeHeadRoute: false,
    handler: async (request, reply) =>
      sendAnswer(reply, failure('METHOD_NOT_ALLOWED', `${request.method} is not allowed here: post reports with POST.`, { allow: 'POST' })),
  });

  app.route({
    method: 'POST',
    url: REPORTS_PATH,
    bodyLimit: REPORTS_BODY_LIMIT_BYTES,
    onRequest: admitOnRequest((authorization, context) => admission.admitKey(authorization, context)),
    preParsing: async (request, _reply, payload) => decode(request.headers['content-encoding'], payload),
    onSend: limitHeadersOnSend(admission),
    errorHandler: (error, request, reply) =>
      sendAnswer(reply, answerForError(bodyError(error), { requestId: request.id, log: request.log, classify: deps.classifyError })),
    handler: async (request, reply) => {
      const { reports, refused } = readReports(request.body as ParsedJsonBody);
      const caller = request.netgraph.caller;
      if (caller === undefined) return sendAnswer(reply, UNAUTHORIZED);
      // one unit per report, so the window is counted once the body is read
      const limited = await admission.countRequest(request.netgraph, reports.length);
      if (limited !== undefined) return sendAnswer(reply, limited);
      const result = await deps.reports.ingest(caller, reports, deps.onIngested, refused);
      return reply.code(200).type(JSON_TYPE).send(JSON.stringify(result));
    },
  });
}

/**
 * The body decompressed as Content-Encoding says. A gzip body is read whole
 * (at most the limit, compressed) and inflated with the limit as the most it
 * may grow to, so a small body that inflates without end costs no more than
 * the limit; a stream error can never outlive the request.
 */
async function decode(encoding: string | undefined, payload: Readable): Promise<Readable> {
  const name = encoding?.trim().toLowerCase();
  if (name === undefined || name === '' || name === 'identity') return payload;
  if (name !== 'gzip') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding must be gzip or left out.');
  const compressed = await readAtMost(payload, REPORTS_BODY_LIMIT_BYTES);
  let inflated: Buffer;
  try {
    inflated = await gunzipAsync(compressed, { maxOutputLength: REPORTS_BODY_LIMIT_BYTES });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new AppError('BAD_REQUEST', 'The body is not valid gzip.');
  }
  // Fastify compares this with Content-Length, which counts the compressed bytes
  const decoded = Object.assign(new PassThrough(), { receivedEncodedLength: compressed.length });
  decoded.end(inflated);
  return decoded;
}

/**
 * The whole of a stream, or PAYLOAD_TOO_LARGE once it passes `limit` bytes.
 * Past the limit the stream is left alone, never destroyed (as leaving a
 * `for await` loop would): destroying the request resets the connection
 * before the 413 is written. The rest of the body is read and thrown away
 * after the answer (http/lingering-close.ts).
 */
function readAtMost(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = () => stream.off('data', onData).off('end', onEnd).off('error', onError);
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, length));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    stream.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function tooLarge(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 5 MiB (after decompression): send fewer reports per request.');
}

/** Errors of reading the body, in this route's terms (its size limit, gzip). */
function bodyError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge();
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('BAD_REQUEST', 'The request body is empty: send {"reports": [...]}.');
  return error;
}

/**
 * The reports of a body `{"reports": [...]}` with 1 to 500 of them, and the
 * reports refused for holding a prototype key (each alone, at its path);
 * BAD_REQUEST for any other body, or for a prototype key outside the reports.
 */
function readReports(parsed: ParsedJsonBody): { reports: unknown[]; refused: Map<number, Rejection> } {
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('BAD_REQUEST', 'The request body must be a JSON object: {"reports": [...]}.');
  }
  // object rest defines its properties, so a "__proto__" key stays data here too
  const { reports, ...rest } = body as { reports?: unknown };
  const outside = parsed.prototypeKey === undefined ? undefined : findPrototypeKey(rest);
  if (outside !== undefined) throw new AppError('BAD_REQUEST', prototypeKeyMessage(outside));
  if (!Array.isArray(reports)) throw new AppError('BAD_REQUEST', 'The body has no "reports" list: send {"reports": [...]}.');
  if (reports.length === 0 || reports.length > MAX_REPORTS_PER_REQUEST) {
    throw new AppError('BAD_REQUEST', `"reports" holds ${reports.length} reports; send 1 to ${MAX_REPORTS_PER_REQUEST} per request.`);
  }
  const refused = new Map<number, Rejection>();
  if (parsed.prototypeKey !== undefined) {
    reports.forEach((report, index) => {
      const found = findPrototypeKey(report, `reports[${index}]`);
      if (found !== undefined) refused.set(index, { index, code: 'BAD_USER_INPUT', path: found.path, message: prototypeKeyMessage(found) });
    });
  }
  return { reports, refused };
}

/** An error answer in the GraphQL error shape of docs/errors.md. */
function failure(code: ErrorCode, message: string, headers: Record<string, string> = {}): Answer {
  return errorAnswer(ERROR_CODES[code], { 'content-type': JSON_TYPE, ...headers }, [{ message, extensions: { code } }]);
}
