import { documentText, readOperation } from './client.documents.js';
import type { Document } from './client.documents.js';
import { NetgraphNetworkError, NetgraphRequestError, errorsOfBody, isRecord } from './client.errors.js';
import type { GraphQLErrorValue } from './client.errors.js';
import { createPacer, retryAt } from './client.pacer.js';
import { changePages, eventLogPages } from './client.pages.js';
import type { ChangesData, EventLogData, OffsetVariables, Pager } from './client.pages.js';
import { RETRIED_STATUSES, backoffDelay, sleep } from './client.retry.js';
import type { RetryPolicy } from './client.retry.js';

/** How a client reaches netgraph and how patient it is. */
export interface ClientOptions {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:4000/api/v1/graphql`; a URL without a path gets `/api/v1/graphql`. */
  readonly url: string;
  /** An API key (`ngk_…`), sent as `Authorization: Bearer`. */
  readonly apiKey: string;
  /** The fetch to use (default: the global one, in Node.js 20+ and browsers). */
  readonly fetch?: typeof globalThis.fetch;
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Retries of queries that got no answer, or a 502, 503 or 504. */
  readonly retry?: RetryPolicy;
  /** Retry mutations too (default false: a mutation that got no answer may have run). A request's `retry` overrides it. */
  readonly retryMutations?: boolean;
  /** The longest one wait for a 429's `Retry-After` (default 2 minutes); a 429 asking more is returned. */
  readonly maxWaitMs?: number;
  /** Wait ahead of a request the limits would refuse, from the last answer's headers (default true). */
  readonly pace?: boolean;
  /** How long one attempt may take before it counts as a network error (default 90 s; the server stops at 60 s). */
  readonly timeoutMs?: number;
  /** Told of every wait, e.g. to log it. */
  readonly onWait?: (wait: WaitEvent) => void;
}

/** A wait of the client: for the request window, the complexity budget, or a retry. */
export interface WaitEvent {
  /**
   * `pace`: ahead of a request the limits would refuse; `rate-limit` and
   * `throttled`: after a 429 of each kind, as `Retry-After` says; `retry`:
   * the backoff before retrying a query.
   */
  readonly reason: 'pace' | 'rate-limit' | 'throttled' | 'retry';
  readonly ms: number;
  readonly operationName: string | undefined;
}

/** Options of one request. */
export interface RequestOptions {
  /** Which operation of the document to run, when it has several. */
  readonly operationName?: string;
  /** Retry this request on a network error, 502, 503 or 504 (default: true for queries, the client's `retryMutations` for mutations). */
  readonly retry?: boolean;
  readonly signal?: AbortSignal;
}

/** What an operation cost the key's complexity budget (docs/limits.md). */
export interface Cost {
  readonly requested: number;
  readonly actual: number;
  readonly remaining: number;
}

/**
 * An answer as a value. `data` is null when the request failed as a whole
 * (then `errors` says why: UNAUTHENTICATED for an unknown or revoked key, say);
 * a field that failed is null in `data` with an error whose `path` names it.
 */
export interface Result<Data> {
  readonly data: Data | null;
  /** The answer's errors, each with `extensions.code`; empty when none. */
  readonly errors: readonly GraphQLErrorValue[];
  readonly status: number;
  /** The operation's cost, when it ran. */
  readonly cost: Cost | undefined;
}

/** The variables argument: optional when the document needs none. */
export type RequestArgs<Variables> = object extends Variables
  ? [variables?: Variables, options?: RequestOptions]
  : [variables: Variables, options?: RequestOptions];

/** A netgraph API client: typed requests that wait out the limits and retry what is safe to retry. */
export interface NetgraphClient {
  /**
   * Sends a document made with `graphql()` and resolves with its typed
   * result. Every answer is a value; it rejects only when no answer came
   * (NetgraphNetworkError, after the retries allowed) or the signal aborted.
   */
  request<Data, Variables>(document: Document<Data, Variables>, ...args: RequestArgs<Variables>): Promise<Result<Data>>;
  /**
   * Every item of every page of a paged root, in order: one request a page,
   * each waiting out the limits like `request`. A page with errors ends the
   * iteration with a NetgraphRequestError.
   */
  paginate<Data, Variables, Item>(document: Document<Data, Variables>, variables: Variables, pager: Pager<Data, Variables, Item>, options?: RequestOptions): AsyncGenerator<Item, void, undefined>;
  /**
   * Every event of a network's log (recentEventLogEventsPage), newest first,
   * 100 a page unless `limit` says otherwise. The document declares `$limit`
   * and `$offset` (and `$endTime` to hold the log still while it pages: see eventLogPages).
   */
  eventLog<Event, Variables extends EventLogVariables>(
    document: Document<EventLogData<Event>, Variables>,
    variables: Omit<Variables, 'limit' | 'offset'> & OffsetVariables,
    options?: RequestOptions,
  ): AsyncGenerator<Event, void, undefined>;
  /**
   * Every change of the change feed (`changes`, docs/changes.md) after
   * `after` (null or absent: from the oldest kept change), in commit order,
   * to the last one committed; then it ends. The document declares `$after`;
   * select each change's `cursor` to continue later from the last one
   * handled. An expired cursor ends it with a NetgraphRequestError that has
   * CURSOR_EXPIRED: resync from empty.
   */
  changes<Change, Variables extends { readonly after?: string | null }>(
    document: Document<ChangesData<Change>, Variables>,
    variables: Variables,
    options?: RequestOptions,
  ): AsyncGenerator<Change, void, undefined>;
}

/** The variables eventLog() fills in: the page size and offset, and the end of the window. */
export type EventLogVariables = OffsetVariables & { readonly endTime?: string | null };

/** A 429 more than this many times in a row is returned, whatever it says. */
const MAX_CONSECUTIVE_429 = 20;

/** Creates a client; it keeps the limits' state of its key across requests. */
export function createClient(options: ClientOptions): NetgraphClient {
  const url = endpointUrl(options.url);
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const pacer = createPacer(Date.now);
  const maxWaitMs = options.maxWaitMs ?? 120_000;
  const retries = options.retry?.retries ?? 4;

  const client: NetgraphClient = {
    request: (document, ...[variables, requestOptions]) => run(document, variables, requestOptions ?? {}),
    async *paginate(document, variables, pager, requestOptions = {}) {
      let pageVariables: typeof variables | undefined = pager.start(variables, readOperation(document, requestOptions.operationName));
      while (pageVariables !== undefined) {
        const data = requireData(await run(document, pageVariables, requestOptions));
        yield* pager.items(data);
        pageVariables = pager.next(data, pageVariables);
      }
    },
    eventLog<Event, Variables extends EventLogVariables>(document: Document<EventLogData<Event>, Variables>, variables: Omit<Variables, 'limit' | 'offset'> & OffsetVariables, requestOptions?: RequestOptions) {
      // the limit and offset left out are the pager's to fill in
      return client.paginate(document, variables as Variables, eventLogPages<Event, Variables>(), requestOptions);
    },
    changes(document, variables, requestOptions) {
      return client.paginate(document, variables, changePages(), requestOptions);
    },
  };
  return client;

  /** One request, waited and retried as the options say. */
  async function run<Data, Variables>(document: Document<Data, Variables>, variables: Variables | undefined, requestOptions: RequestOptions): Promise<Result<Data>> {
    const operation = readOperation(document, requestOptions.operationName);
    const text = documentText(document);
    const retryable = requestOptions.retry ?? (operation.kind === 'query' || options.retryMutations === true);
    const wait = async (reason: WaitEvent['reason'], ms: number) => {
      options.onWait?.({ reason, ms, operationName: operation.name });
      await sleep(ms, requestOptions.signal);
    };
    const body = JSON.stringify({
      query: text,
      ...(variables !== undefined ? { variables } : {}),
      ...(operation.name !== undefined ? { operationName: operation.name } : {}),
      // the answer then reports the requested cost, which the pacer keeps per document
      extensions: { cost: true },
    });
    let failures = 0;
    let refusals = 0;
    for (;;) {
      if (options.pace !== false) {
        for (let ms = pacer.admit(text); ms > 0; ms = pacer.admit(text)) await wait('pace', ms);
      } else pacer.admit(text, true);
      const answer = await send(body, requestOptions.signal).catch((error: unknown) => {
        pacer.settle(text, undefined);
        if (requestOptions.signal?.aborted) throw error;
        return error instanceof Error ? error : new Error(String(error));
      });
      if (answer instanceof Error) {
        failures += 1;
        if (!retryable || failures > retries) throw new NetgraphNetworkError(`netgraph: no answer from ${url} after ${failures} attempt(s): ${answer.message}`, failures, answer);
        await wait('retry', backoffDelay(options.retry ?? {}, failures));
        continue;
      }
      const { response, json, receivedAt } = answer;
      const cost = readCost(json);
      pacer.settle(text, { headers: response.headers, requestedCost: cost?.requested, receivedAt });
      const result: Result<Data> = {
        data: isRecord(json) && isRecord(json.data) ? (json.data as Data) : null,
        errors: errorsOfBody(json, response.status),
        status: response.status,
        cost,
      };
      const retryAtMs = retryAt(response.headers, receivedAt);
      if (response.status === 429 && refusals < MAX_CONSECUTIVE_429) {
        refusals += 1;
        const throttled = learnFromRefusal(text, result.errors, retryAtMs);
        const ms = retryAtMs !== undefined ? Math.max(0, retryAtMs - Date.now()) : backoffDelay(options.retry ?? {}, refusals);
        if (ms <= maxWaitMs) {
          // nothing ran on a 429, so a mutation is as safe to send again as a query
          await wait(throttled ? 'throttled' : 'rate-limit', ms);
          continue;
        }
      }
      if (RETRIED_STATUSES.has(response.status) && retryable && failures < retries) {
        failures += 1;
        const backoff = backoffDelay(options.retry ?? {}, failures);
        const ms = retryAtMs !== undefined ? Math.max(backoff, retryAtMs - Date.now()) : backoff;
        if (ms <= maxWaitMs) {
          await wait('retry', ms);
          continue;
        }
      }
      return result;
    }
  }

  /** Tells the pacer what a 429 says, so that other requests wait too; true for THROTTLED. */
  function learnFromRefusal(text: string, errors: readonly GraphQLErrorValue[], retryAtMs: number | undefined): boolean {
    const throttled = errors.find((e) => e.extensions.code === 'THROTTLED');
    if (throttled) pacer.learnThrottled(text, throttled.extensions.cost, throttled.extensions.remaining);
    else if (retryAtMs !== undefined) pacer.blockRequestsUntil(retryAtMs);
    return throttled !== undefined;
  }

  /** One attempt: the answer and its body read (JSON, or undefined when it is not). */
  async function send(body: string, signal: AbortSignal | undefined): Promise<{ response: Response; json: unknown; receivedAt: number }> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 90_000);
    const response = await fetchFn(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${options.apiKey}` },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const receivedAt = Date.now();
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { response, json, receivedAt };
  }
}

/**
 * The data of a result without errors; throws NetgraphRequestError, which
 * carries the typed errors, when it has any.
 */
export function requireData<Data>(result: Result<Data>): Data {
  if (result.errors.length > 0 || result.data === null) throw new NetgraphRequestError(result.errors, result.status);
  return result.data;
}

function readCost(json: unknown): Cost | undefined {
  const cost = isRecord(json) && isRecord(json.extensions) ? json.extensions.cost : undefined;
  return isRecord(cost) && typeof cost.requested === 'number' ? (cost as unknown as Cost) : undefined;
}

/** The endpoint of a URL given with or without its path. */
function endpointUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/api/v1/graphql';
  return parsed.toString();
}
