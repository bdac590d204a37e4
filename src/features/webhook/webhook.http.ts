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

// keep-alive: a burst to one receiver reuses its connections instead of opening one per message
const AGENTS = { http: new http.Agent({ keepAlive: true, maxSockets: 32 }), https: new https.Agent({ keepAlive: true, maxSockets: 32 }) };

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
    const finish = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const request = (secure ? https : http).request(target.url, {
      method: 'POST',
      agent: secure ? AGENTS.https : AGENTS.http,
      lookup,
      headers: { 'content-type': 'application/json', 'user-agent': 'netgraph-webhooks/1', 'content-length': String(Buffer.byteLength(body)), ...headers },
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('response', (response) => {
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
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: null, response: null, error: error.code ? `${error.code}: ${error.message}` : error.message, retryAfterMs: null }),
    );
    request.end(body);
  });
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
