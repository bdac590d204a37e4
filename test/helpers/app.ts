import { loadConfig } from '../../src/config.js';
import type { ImportDocument } from '../../src/platform/import/import.schema.js';
import { startServer } from '../../src/server.js';
import type { RunningServer, ServerOptions } from '../../src/server.js';
import { createTestDatabase } from './stores.js';
import type { StoreKind, TestDatabase } from './stores.js';

/**
 * A JSON response body as tests read it: an object (or array) whose members
 * a test reaches by chaining, `res.body.data.network.label` or
 * `res.body.errors[0].extensions.code`, and leaves to its assertion to check.
 * The members are untyped on purpose: under noUncheckedIndexedAccess a
 * recursive JSON type adds `| undefined` at every step, and some 230 lines of
 * the tests would need a `!` or `?.` that asserts nothing. Only the body
 * itself is typed, so it cannot pass for a string or a number.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the members only; see above
export interface JsonTree { readonly [key: string]: any }

/** A response as tests look at it. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body; undefined at run time when the body is not JSON (tests then read `text`). */
  readonly body: JsonTree;
}

/** A running server on a fresh database, reached over real HTTP. */
export interface TestApp {
  readonly kind: StoreKind;
  readonly database: TestDatabase;
  readonly server: RunningServer;
  readonly url: string;
  /** POSTs a GraphQL request with the key (unless `key: null`). */
  graphql(
    query: string,
    options?: { key?: string | null; variables?: unknown; operationName?: string; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /** Any request to the server. */
  request(path: string, init?: RequestInit): Promise<TestResponse>;
  /** Creates a key for a company and returns its value. */
  createKey(company: string, label?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Limits out of reach for tests of other features, which send requests far
 * faster than a key's budget refills; the limit tests pass their own (env
 * overrides these).
 */
export const UNREACHABLE_LIMITS: Readonly<Record<string, string>> = {
  RATE_LIMIT_REQUESTS: '10000000',
  COMPLEXITY_BUDGET: '10000000',
};

/**
 * Starts a server on a fresh database of `kind` (or on `database`), loaded
 * with `data` when given; `clock` (ms since the epoch) drives its rate limits
 * and device reports; `demoSimulator` is the server's option of that name.
 */
export async function startTestApp(
  kind: StoreKind,
  options: {
    data?: ImportDocument;
    env?: Record<string, string>;
    clock?: () => number;
    database?: TestDatabase;
    demoSimulator?: ServerOptions['demoSimulator'];
    /** False: no report tasks, webhook work or demo simulator (ServerOptions.backgroundWork). */
    backgroundWork?: boolean;
  } = {},
): Promise<TestApp> {
  // a copy of the run's migrated template: the server's own migration run then finds nothing to do
  const database = options.database ?? (await createTestDatabase(kind, { migrated: true }));
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    PORT: '0',
    DEMO_DATA: 'off',
    ...UNREACHABLE_LIMITS,
    ...options.env,
  });
  const server = await startServer(config, () => undefined, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.demoSimulator !== undefined ? { demoSimulator: options.demoSimulator } : {}),
    ...(options.backgroundWork !== undefined ? { backgroundWork: options.backgroundWork } : {}),
  });
  await server.prepared;
  if (options.data) await server.services.imports.import(options.data);

  const request = async (path: string, init?: RequestInit): Promise<TestResponse> => {
    const response = await fetch(`${server.url}${path}`, init);
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: body as JsonTree };
  };
  let defaultKey: string | undefined;

  const app: TestApp = {
    kind,
    database,
    server,
    url: server.url,
    request,
    async graphql(query, opts = {}) {
      let key = opts.key;
      if (key === undefined) key = defaultKey ??= await app.createKey('acme', 'test default');
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      if (key !== null) headers.authorization = `Bearer ${key}`;
      const body: Record<string, unknown> = { query };
      if (opts.variables !== undefined) body.variables = opts.variables;
      if (opts.operationName !== undefined) body.operationName = opts.operationName;
      return request('/api/v1/graphql', { method: 'POST', headers, body: JSON.stringify(body) });
    },
    async createKey(company, label = 'test') {
      return (await server.services.apiKeys.create({ companySlug: company, label })).key;
    },
    async close() {
      await server.close();
      await database.drop();
    },
  };
  return app;
}
