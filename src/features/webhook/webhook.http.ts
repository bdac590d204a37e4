import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './webhook.target.js';

/** How many bytes of an answer's body the delivery log keeps. */
export const RESPONSE_PREFIX_BYTES = 1024;

/** What one POST came to. */
export interface PostOutcome {
  /** The HTTP status; null when no answer came. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The first RESPONSE_PREFIX_BYTES of the body (as UTF-8 text), or null. */
  readonly response: string | null;
  /** Why no answer came (timeout, connection refused ...), or null. */
  readonly error: string | null;
  /** The answer's Retry-After as milliseconds from now, or null. */
  readonly retryAfterMs: number | null;
}

/**
 * How long a connection stays open, idle, for the next message to its
 * receiver. Node.js closes it a second before the receiver's own
 * `Keep-Alive: timeout=` when that is sooner (a Node.js receiver closes after 5 s).
 */
const IDLE_CONNECTION_MS = 4_000;
// keep-alive: a burst to one receiver reuses its connections instead of opening one per message
const AGENTS = {
  http: new http.Agent({ keepAlive: true, maxSockets: 32, timeout: IDLE_CONNECTION_MS }),
  https: new https.Agent({ keepAlive: true, maxSockets: 32, timeout: IDLE_CONNECTION_MS }),
};
/** More stale connections than an agent keeps to one receiver: a retry beyond them is on a new connection. */
const STALE_RETRIES = 33;

/**
 * True when a request that had no answer failed because the receiver had
 * closed the kept-alive connection it went out on as it was sent: the
 * request goes again at once, on another connection (Node.js's
 * `request.reusedSocket`). A receiver that resets a new connection fails
 * the attempt as before.
 */
function closedUnderneath(request: http.ClientRequest, error: NodeJS.ErrnoException): boolean {
  return request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
}

/**
 * POSTs `body` to the target, connecting to its checked address only (the
 * lookup answers with it instead of resolving again), with no redirect
 * followed (node:http follows none: a 3xx is an answer like any other), and
 * gives up after `timeoutMs`. Never throws.
 */
export function postWebhook(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
  const started = performance.now();
  const lookup: LookupFunction = (_host, options, callback) => {
    // node asks for every address when autoSelectFamily is on: answer with the one that was checked
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const secure = target.url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    let request: http.ClientRequest;
    const finish = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const send = (retries: number) => {
      request = (secure ? https : http).request(target.url, {
        method: 'POST',
        agent: secure ? AGENTS.https : AGENTS.http,
        lookup,
        headers: { 'content-type': 'application/json', 'user-agent': 'netgraph-webhooks/1', 'content-length': String(Buffer.byteLength(body)), ...headers },
      });
      const sent = request;
      let answered = false;
      sent.on('response', (response) => {
        answered = true;
        const kept: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_PREFIX_BYTES) kept.push(chunk.subarray(0, RESPONSE_PREFIX_BYTES - size));
          size += chunk.length;
        });
        const done = (error: string | null) =>
          finish({
            status: response.statusCode ?? null,
            response: kept.length === 0 ? null : Buffer.concat(kept).toString('utf8'),
            error,
            retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()),
          });
        response.on('end', () => done(null));
        response.on('error', (error) => done(error.message));
      });
      sent.on('error', (error: NodeJS.ErrnoException) => {
        if (!settled && !answered && retries > 0 && closedUnderneath(sent, error)) send(retries - 1);
        else finish({ status: null, response: null, error: error.code ? `${error.code}: ${error.message}` : error.message, retryAfterMs: null });
      });
      sent.end(body);
    };
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    send(STALE_RETRIES);
  });
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
