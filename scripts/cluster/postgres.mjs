// A PostgreSQL 15 cluster of our own (initdb in a temp folder, a free port),
// which `npm run chaos` may stop and restart: never the shared one on 5432.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isExecutable, run } from './processes.mjs';

/** Where Debian's PostgreSQL 15 server binaries are. */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** True when this machine can run a cluster of its own. */
export function canRunPostgres() {
  return isExecutable(path.join(PG_BIN, 'initdb')) && isExecutable(path.join(PG_BIN, 'pg_ctl'));
}

/**
 * Creates and starts a cluster in `dir` listening on 127.0.0.1:`port` with
 * trust authentication for the `postgres` user, and a database `netgraph`.
 * As root, the server runs as the postgres user (it refuses root).
 */
export async function createPostgresCluster({ dir, port }) {
  const data = path.join(dir, 'pgdata');
  const asRoot = process.getuid?.() === 0;
  const prefix = asRoot ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    fs.chownSync(dir, uid, gid);
  }
  const pg = (tool, args) => {
    const [command, ...rest] = [...prefix, path.join(PG_BIN, tool), ...args];
    return run(command, rest, { cwd: dir });
  };
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const ctl = (action, extra = []) => pg('pg_ctl', [action, '-D', data, '-w', '-t', '60', ...extra]);
  const cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/netgraph`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => ctl('start', ['-l', path.join(dir, 'postgres.log'), '-o', options]),
    /** Stops it the way an operator's restart does (fast: open sessions are ended). */
    stop: () => ctl('stop', ['-m', 'fast']),
  };
  await cluster.start();
  await run(path.join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', 'CREATE DATABASE netgraph', 'postgres']);
  return cluster;
}
