import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorCodes } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { Answer } from '../answer.js';
import { BODY_LIMIT_BYTES } from '../body-errors.js';
import { answerForError } from '../error-answer.js';
import { parseJsonBody } from '../json-body.js';
import { lingerOnUnreadBody } from '../lingering-close.js';
import type { RequestContext } from '../request-context.js';
import { keyRequest, requestLine } from '../request-log.js';
import { noteErrorCodes } from '../answer.js';
import type { RequestLogWriter } from '../../features/request-log/request-log.writer.js';
import { logsRequests, requestLineWriter } from '../../observability/log.js';
import { admit, answerGraphQL } from './graphql.pipeline.js';
import type { GraphQLRouteDeps } from './graphql.pipeline.js';
import { GRAPHQL_PATH } from './graphql.route.js';

/** What the bare route needs besides the GraphQL route's own dependencies: what Fastify's hooks do for every other route. */
export interface EndpointDeps extends GraphQLRouteDeps {
  readonly log: FastifyBaseLogger;
  /** The request id: the client's X-Request-Id when it is acceptable, a new one otherwise. */
  readonly requestId: (header: string | string[] | undefined) => string;
  /** Records the request in the metrics, once answered. */
  readonly observe: (operationName: string | null, status: number, seconds: number) => void;
  /** The store's mapping of driver errors to AppErrors. */
  readonly classifyError: (error: unknown) => unknown;
  /** True once shutdown has started: responses then close their connection. */
  readonly draining: () => boolean;
  /** The client's address for the log line (X-Forwarded-For's under TRUST_PROXY). */
  readonly clientAddress: (request: IncomingMessage) => string | undefined;
  /** Where requests made with a key are recorded (the per-key request log); undefined with API_REQUEST_LOG=off. */
  readonly requestLog: RequestLogWriter | undefined;
}

/**
 * True for the requests the bare route answers: `POST /api/v1/graphql` with
 * a JSON body, which is every request of an integration. Anything else (other
 * methods, a query string, other media types) goes to Fastify's router, whose
 * route for the same path answers with the same functions.
 */
export function isPlainGraphQLRequest(request: IncomingMessage): boolean {
  if (request.method !== 'POST' || request.url !== GRAPHQL_PATH) return false;
  const type = request.headers['content-type'];
  if (type === undefined) return false;
  const lower = type.toLowerCase();
  return lower === 'application/json' || /^application\/json *; *charset="?utf-8"?$/.test(lower);
}

/**
 * POST /api/v1/graphql on bare node:http, outside Fastify's request
 * lifecycle: the key and the request limit, then the body, then the
 * operation, then one write of the whole response, with one log line and one
 * metrics observation. It is the hot path of every integration; Fastify's
 * hooks, reply object and logger child per request cost as much CPU as the
 * compiled read itself (docs/benchmarks.md). Behaviour is the Fastify route's:
 * both call admit() and answerGraphQL(), and errors go through
 * answerForError().
 */
export function createGraphQLEndpoint(deps: EndpointDeps): (request: IncomingMessage, response: ServerResponse) => void {
  const { log } = deps;
  const logRequest = requestLineWriter(log);

  async function answer(request: IncomingMessage, requestId: string, context: RequestContext): Promise<Answer> {
    const refused = await admit(deps, request.headers.authorization, context);
    if (refused !== undefined) return refused;
    const body = await readJsonBody(request);
    return answerGraphQL(deps, context, { accept: request.headers.accept, body, requestId, log });
  }

  function send(request: IncomingMessage, response: ServerResponse, requestId: string, context: RequestContext, started: number, result: Answer, unreadBody: boolean): void {
    const { status } = result;
    const headers: Record<string, string | number> = { 'x-request-id': requestId, ...result.headers };
    const limitHeaders = deps.admission.headers(context, status);
    if (limitHeaders !== undefined) Object.assign(headers, limitHeaders);
    // a body that could not be read leaves bytes on the connection: close it, as Fastify does
    if (unreadBody || deps.draining()) headers.connection = 'close';
    headers['content-length'] = Buffer.byteLength(result.body);
    // an answer before the whole body (401, 413): the client reads it before the connection closes
    lingerOnUnreadBody(request, response);
    response.writeHead(status, headers);
    response.end(result.body);
    const elapsedMs = performance.now() - started;
    deps.observe(context.operationName, status, elapsedMs / 1000);
    const facts = { requestId, method: 'POST', path: GRAPHQL_PATH, clientAddress: context.clientAddress, status, elapsedMs };
    if (deps.requestLog !== undefined) {
      noteErrorCodes(context, result);
      const entry = keyRequest(facts, requestId, request.headers['user-agent'], context);
      if (entry !== undefined) deps.requestLog.record(entry);
    }
    if (!logsRequests(log)) return;
    logRequest(requestLine(facts, context));
  }

  return (request, response) => {
    const started = performance.now();
    const requestId = deps.requestId(request.headers['x-request-id']);
    const context: RequestContext = { operationName: null, statements: 0, clientAddress: deps.clientAddress(request) };
    let unreadBody = false;
    answer(request, requestId, context)
      .catch((error: unknown) => {
        unreadBody = isBodyError(error);
        return answerForError(error, { requestId, log, classify: deps.classifyError });
      })
      .then((result) => send(request, response, requestId, context, started, result, unreadBody))
      .catch((error: unknown) => {
        log.error({ err: error, requestId }, 'could not send a response');
        response.destroy();
      });
  };
}

/** Reads and parses a JSON body as Fastify's JSON parser does, with its errors (so answerForError maps them alike). */
function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (declared > BODY_LIMIT_BYTES) return Promise.reject(markBodyError(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onEnd);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > BODY_LIMIT_BYTES) {
        stop();
        reject(markBodyError(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (error?: Error & { statusCode?: number }) => {
      stop();
      if (error) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        reject(markBodyError(error));
        return;
      }
      if (!Number.isNaN(declared) && received !== declared) {
        reject(markBodyError(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH()));
        return;
      }
      if (received === 0) {
        reject(markBodyError(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY()));
        return;
      }
      const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
      try {
        resolve(parseJsonBody(text));
      } catch (error) {
        reject(markBodyError(error as Error));
      }
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onEnd);
  });
}

const BODY_ERROR = Symbol('netgraph.bodyError');

function markBodyError<T extends object>(error: T): T {
  (error as Record<symbol, boolean>)[BODY_ERROR] = true;
  return error;
}

function isBodyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BODY_ERROR] === true;
}
