// A throwaway PostgreSQL primary and streaming replica, for the tests
// (test/helpers/replica-cluster.ts re-exports this with its types) and for
// `npm run chaos --with-replica`, which needs a replica to lag, pause or
// vanish. Nothing here touches the shared test server on 5432: both clusters
// live in a temporary folder, listen on free ports of 127.0.0.1 and are
// removed by `stop()`, or by the process's exit if a caller never gets there.
//
//   postgresBinaries()      the PostgreSQL bin folder, or undefined (with a one-line
//                           notice) when it is absent; throws when CI=true
//   startReplicaPair(bin)   initdb a primary (wal_level=replica, a replication line in
//                           pg_hba.conf), start it, pg_basebackup -R a replica, start it
//   pair.primaryUrl / replicaUrl   postgres:// URLs (user postgres, database postgres)
//   pair.pauseReplay() / resumeReplay()   pg_wal_replay_pause() / _resume() on the replica
//   pair.waitForReplay()    resolves once the replica has replayed all the primary has written
//   pair.stopReplica() / startReplica()   pg_ctl stop -m immediate / start of the replica alone
//   pair.stopPrimary() / startPrimary()   pg_ctl stop -m fast (an operator's restart) / start
//   pair.stop()             stops both and removes their folder; safe to call twice
//
// The servers run as the `postgres` user (`runuser -u postgres --` when run
// as root: PostgreSQL refuses to run as root).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, run } from './processes.mjs';

/** Where Debian installs the server binaries, one folder per major version. */
const DEBIAN_POSTGRES = '/usr/lib/postgresql';

/**
 * The folder of initdb, pg_ctl and pg_basebackup: PG_BIN, else the newest
 * version under /usr/lib/postgresql. Undefined, with a notice, when there are
 * none; with CI=true their absence fails the run instead.
 */
export function postgresBinaries() {
  const versions = fs.existsSync(DEBIAN_POSTGRES) ? fs.readdirSync(DEBIAN_POSTGRES).sort((a, b) => Number(b) - Number(a)) : [];
  const candidates = [process.env.PG_BIN, ...versions.map((v) => path.join(DEBIAN_POSTGRES, v, 'bin'))];
  const found = candidates.find((dir) => dir !== undefined && fs.existsSync(path.join(dir, 'pg_basebackup')));
  if (found !== undefined) return found;
  if (process.env.CI === 'true') throw new Error('CI=true requires the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) for the replica tests');
  console.warn('notice: no PostgreSQL server binaries (initdb, pg_basebackup) found, so the read replica tests are skipped');
  return undefined;
}

/** Settings of both clusters: small, fast, nothing kept that a test does not need. */
const SERVER_SETTINGS = [
  'wal_level = replica',
  'max_wal_senders = 4',
  'hot_standby = on',
  'fsync = off',
  'full_page_writes = off',
  "listen_addresses = '127.0.0.1'",
  // the chaos run's two processes keep up to 2 x DATABASE_POOL_SIZE each, on each cluster
  'max_connections = 200',
  'shared_buffers = 16MB',
  // the standby reports its replay position often, so waitForReplay sees it soon
  'wal_receiver_status_interval = 1s',
];

/** Starts a primary and a streaming replica of it in a new temporary folder (see the top of this file). */
export async function startReplicaPair(bin) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-replica-'));
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) execFileSync('chown', ['postgres:postgres', root]);
  const tool = (name, args) => (asPostgres ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]) : run(path.join(bin, name), args));
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const start = (dir, port) => tool('pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-o', `-p ${port} -k ${root}`, '-w', '-t', '60', 'start']);
  const stopQuietly = (dir, mode) => tool('pg_ctl', ['-D', dir, '-m', mode, '-w', 'stop']).catch(() => undefined);
  const removeAll = removerOf({ root, dirs: [replicaDir, primaryDir], bin, asPostgres });
  // a caller that dies before its cleanup still leaves nothing running nor on disk
  process.once('exit', removeAll);
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), `\n${SERVER_SETTINGS.join('\n')}\n`);
    fs.appendFileSync(path.join(primaryDir, 'pg_hba.conf'), '\nhost replication postgres 127.0.0.1/32 trust\n');
    await start(primaryDir, primaryPort);
    await tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await start(replicaDir, replicaPort);
  } catch (error) {
    removeAll();
    throw error;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const onReplica = (statement) => query(replicaUrl, statement);
  return {
    primaryUrl,
    replicaUrl,
    pauseReplay: () => onReplica('SELECT pg_wal_replay_pause()').then(() => undefined),
    resumeReplay: () => onReplica('SELECT pg_wal_replay_resume()').then(() => undefined),
    waitForReplay: (timeoutMs = 10_000) => waitForReplay(primaryUrl, onReplica, timeoutMs),
    stopReplica: () => stopQuietly(replicaDir, 'immediate').then(() => undefined),
    startReplica: () => start(replicaDir, replicaPort).then(() => undefined),
    stopPrimary: () => tool('pg_ctl', ['-D', primaryDir, '-m', 'fast', '-w', '-t', '60', 'stop']).then(() => undefined),
    startPrimary: () => start(primaryDir, primaryPort).then(() => undefined),
    async stop() {
      process.off('exit', removeAll);
      await Promise.all([stopQuietly(replicaDir, 'immediate'), stopQuietly(primaryDir, 'immediate')]);
      removeAll();
    },
  };
}

/** A synchronous remover of both clusters (it must work in an 'exit' handler); runs once. */
function removerOf({ root, dirs, bin, asPostgres }) {
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    for (const dir of dirs) {
      if (!fs.existsSync(path.join(dir, 'postmaster.pid'))) continue;
      const args = ['-D', dir, '-m', 'immediate', '-w', 'stop'];
      try {
        execFileSync(asPostgres ? 'runuser' : path.join(bin, 'pg_ctl'), asPostgres ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args] : args, { stdio: 'ignore' });
      } catch {
        // already stopped
      }
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
}

/** Resolves once the replica has replayed what the primary had written when called. */
async function waitForReplay(primaryUrl, onReplica, timeoutMs) {
  const [{ lsn }] = await query(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await onReplica(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
    if (row.done) return;
    if (Date.now() > until) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs one statement on its own connection and returns its rows. */
async function query(url, statement) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}
