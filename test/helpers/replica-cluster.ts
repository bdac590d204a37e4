/**
 * A throwaway PostgreSQL primary and streaming replica, for tests (and the
 * chaos run) that need a replica to lag, pause or vanish. Nothing here
 * touches the shared test server on 5432: both clusters live in a temporary
 * folder, listen on free ports of 127.0.0.1 and are removed by `stop()`, or
 * by the process's exit if a test never gets there.
 *
 *   postgresBinaries()      the PostgreSQL bin folder, or undefined (with a one-line
 *                           notice) when it is absent; throws when CI=true
 *   startReplicaPair()      initdb a primary (wal_level=replica, a replication line in
 *                           pg_hba.conf), start it, pg_basebackup -R a replica, start it
 *   pair.primaryUrl / replicaUrl   postgres:// URLs (user postgres, database postgres)
 *   pair.pauseReplay() / resumeReplay()   pg_wal_replay_pause() / _resume() on the replica
 *   pair.waitForReplay()    resolves once the replica has replayed all the primary has written
 *   pair.stopReplica() / startReplica()   pg_ctl stop -m immediate / start of the replica alone
 *   pair.stop()             stops both and removes their folder; safe to call twice
 *
 * The servers run as the `postgres` user (`runuser -u postgres --` when the
 * tests run as root: PostgreSQL refuses to run as root).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.js';

const run = promisify(execFile);

/** Where Debian installs the server binaries, one folder per major version. */
const DEBIAN_POSTGRES = '/usr/lib/postgresql';

/**
 * The folder of initdb, pg_ctl and pg_basebackup: PG_BIN, else the newest
 * version under /usr/lib/postgresql. Undefined, with a notice, when there are
 * none; with CI=true their absence fails the run instead.
 */
export function postgresBinaries(): string | undefined {
  const versions = fs.existsSync(DEBIAN_POSTGRES) ? fs.readdirSync(DEBIAN_POSTGRES).sort((a, b) => Number(b) - Number(a)) : [];
  const candidates = [process.env.PG_BIN, ...versions.map((v) => path.join(DEBIAN_POSTGRES, v, 'bin'))];
  const found = candidates.find((dir) => dir !== undefined && fs.existsSync(path.join(dir, 'pg_basebackup')));
  if (found !== undefined) return found;
  if (process.env.CI === 'true') throw new Error('CI=true requires the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) for the replica tests');
  console.warn('notice: no PostgreSQL server binaries (initdb, pg_basebackup) found, so the read replica tests are skipped');
  return undefined;
}

/** A running primary and its streaming replica; see the top of this file. */
export interface ReplicaPair {
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  waitForReplay(timeoutMs?: number): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stop(): Promise<void>;
}

/** Settings of both clusters: small, fast, nothing kept that a test does not need. */
const SERVER_SETTINGS = [
  'wal_level = replica',
  'max_wal_senders = 4',
  'hot_standby = on',
  'fsync = off',
  'full_page_writes = off',
  "listen_addresses = '127.0.0.1'",
  'max_connections = 60',
  'shared_buffers = 16MB',
  // the standby reports its replay position often, so waitForReplay sees it soon
  'wal_receiver_status_interval = 1s',
];

/** Starts a primary and a streaming replica of it in a new temporary folder (see the top of this file). */
export async function startReplicaPair(bin: string): Promise<ReplicaPair> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-replica-'));
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) execFileSync('chown', ['postgres:postgres', root]);
  const tool = (name: string, args: string[]) =>
    asPostgres ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]) : run(path.join(bin, name), args);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const ctl = (dir: string, port: number, action: 'start' | 'stop') =>
    action === 'start'
      ? tool('pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-o', `-p ${port} -k ${root}`, '-w', '-t', '30', 'start'])
      : tool('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  let stopped = false;
  const removeAll = () => {
    if (stopped) return;
    stopped = true;
    for (const dir of [replicaDir, primaryDir]) {
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
  // a test that dies before its afterAll still leaves nothing running nor on disk
  process.once('exit', removeAll);
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), `\n${SERVER_SETTINGS.join('\n')}\n`);
    fs.appendFileSync(path.join(primaryDir, 'pg_hba.conf'), '\nhost replication postgres 127.0.0.1/32 trust\n');
    await ctl(primaryDir, primaryPort, 'start');
    await tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await ctl(replicaDir, replicaPort, 'start');
  } catch (error) {
    removeAll();
    throw error;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const onReplica = (statement: string) => query(replicaUrl, statement);

  return {
    primaryUrl,
    replicaUrl,
    pauseReplay: () => onReplica('SELECT pg_wal_replay_pause()').then(() => undefined),
    resumeReplay: () => onReplica('SELECT pg_wal_replay_resume()').then(() => undefined),
    async waitForReplay(timeoutMs = 10_000) {
      const [{ lsn }] = (await query(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn')) as [{ lsn: string }];
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [row] = (await onReplica(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`)) as [{ done: boolean }];
        if (row.done) return;
        if (Date.now() > until) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stopReplica: () => ctl(replicaDir, replicaPort, 'stop').then(() => undefined),
    startReplica: () => ctl(replicaDir, replicaPort, 'start').then(() => undefined),
    async stop() {
      process.off('exit', removeAll);
      await Promise.all([ctl(replicaDir, replicaPort, 'stop'), ctl(primaryDir, primaryPort, 'stop')]);
      removeAll();
    },
  };
}

/** Runs one statement on its own connection and returns its rows. */
async function query(url: string, statement: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(statement)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
