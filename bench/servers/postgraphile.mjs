// PostGraphile 4 over the same PostgreSQL data, as a team would run it in
// production: plain node:http, no GraphiQL, no query log, no schema watching,
// read-only (no default mutations). It checks no API key and no company scope.
//
// Environment: DATABASE_URL (required), PORT (default 4200; 0 picks one),
// HOST (default 127.0.0.1), WORKERS (default 2), DATABASE_POOL_SIZE (default 10),
// DATABASE_SCHEMA (default public).
import http from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { runWorkers } from './workers.mjs';

function startWorker({ url, port, host, poolSize, schema }) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  const middleware = postgraphile(pool, schema, {
    graphqlRoute: '/graphql',
    graphiql: false,
    watchPg: false,
    retryOnInitFail: false,
    disableQueryLog: true,
    disableDefaultMutations: true,
    legacyRelations: 'omit',
    ignoreRBAC: false,
    enableQueryBatching: false,
    extendedErrors: [],
    showErrorStack: false,
    setofFunctionsContainNulls: false,
  });
  const server = http.createServer(middleware);
  server.listen(port, host, () => {
    console.log(`postgraphile listening on http://${host}:${server.address().port}/graphql`);
  });
  const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('postgraphile: DATABASE_URL is required');
  const options = {
    url,
    port: Number(process.env.PORT ?? 4200),
    host: process.env.HOST ?? '127.0.0.1',
    poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    schema: process.env.DATABASE_SCHEMA ?? 'public',
  };
  runWorkers(Number(process.env.WORKERS ?? 2), () => startWorker(options));
}

main();
