// The ingest floor: node:http taking the bodies of POST /api/v1/reports and
// writing the rows netgraph writes for them (src/ingest/), with
// hand-written multi-row statements in one transaction per batch. No key, no
// validation beyond JSON.parse. It covers the benchmark's steady fleet: the
// same ports and clients in every report of a device and no device events,
// so it neither removes departed ports or clients nor ends sessions, it adds
// no client to a device's presence row of a bucket (the row has them all), and
// it records no online transitions (the bench's reports are older than the
// offline window).
//
//   POST /reports   body {"reports": [...]}   ->   {"accepted": N}
//
// Environment: DATABASE_URL (postgres://... or sqlite:FILE, required), PORT,
// HOST (default 127.0.0.1), WORKERS (default 2).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { buildRows } from '../lib/ingest-rows.mjs';
import { runWorkers } from './workers.mjs';

function startWorker({ url, port, host }) {
  const store = url.startsWith('sqlite:') ? sqliteStore(url.slice('sqlite:'.length)) : postgresStore(url);
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/reports') {
      response.writeHead(404).end();
      return;
    }
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      let reports;
      try {
        reports = JSON.parse(Buffer.concat(chunks).toString('utf8')).reports;
      } catch {
        response.writeHead(400).end();
        return;
      }
      store.ingest(reports).then(
        (accepted) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ accepted, duplicates: reports.length - accepted, rejected: [] }));
        },
        (error) => {
          console.error(`ingest-floor: ${error.stack}`);
          response.writeHead(500).end();
        },
      );
    });
  });
  server.listen(port, host, () => console.log(`ingest-floor listening on http://${host}:${server.address().port}`));
  const stop = () => server.close(() => void store.close().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** `INSERT INTO table (columns) VALUES (...), (...) <tail>` with placeholders from `mark(n)`. */
function insertSql(table, columns, count, mark, tail = '') {
  let n = 0;
  const row = () => `(${columns.map(() => mark(++n)).join(', ')})`;
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: count }, row).join(', ')} ${tail}`;
}

/**
 * The statements of one batch, in netgraph's order. `run(sql, values)`
 * executes one and resolves with its rows; `dialect` has the store's
 * placeholder `mark(n, type)`, `bool`, `least` and `greatest`.
 */
async function writeBatch(run, devices, reports, dialect) {
  const { receipts, rowsFor } = buildRows(devices, reports, randomUUID, dialect);
  const stored = new Set();
  if (receipts.rows.length > 0) {
    const tail = 'ON CONFLICT (company_id, report_id) DO NOTHING RETURNING report_id';
    for (const row of await run(insertSql('report_receipts', receipts.columns, receipts.rows.length, dialect.mark, tail), receipts.rows.flat())) stored.add(row.report_id);
  }
  for (const t of rowsFor(stored)) {
    // at most 30,000 values a statement: below SQLite's 32,766 and PostgreSQL's 65,535
    const size = Math.floor(30_000 / t.columns.length);
    for (let i = 0; i < t.rows.length; i += size) {
      const chunk = t.rows.slice(i, i + size);
      await run(t.sql ? t.sql(dialect.mark, chunk.length) : insertSql(t.table, t.columns, chunk.length, dialect.mark, t.tail ?? ''), chunk.flat());
    }
  }
  return stored.size;
}

const POSTGRES = {
  mark: (n, type) => (type ? `$${n}::${type}` : `$${n}`),
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
};

const SQLITE = {
  mark: () => '?',
  bool: (b) => (b ? 1 : 0),
  least: (a, b) => `min(coalesce(${a}, ${b}), coalesce(${b}, ${a}))`,
  greatest: (a, b) => `max(coalesce(${a}, ${b}), coalesce(${b}, ${a}))`,
};

function postgresStore(url) {
  // the product's own dependency tree has pg too; bench/node_modules is the harness's
  const pgPromise = import('pg').then((m) => m.default);
  let pool;
  return {
    async ingest(reports) {
      pool ??= new (await pgPromise).Pool({ connectionString: url, max: 10 });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const devices = (
          await client.query(
            `SELECT h.id, h.serial_number, h.company_id, v.network_id FROM hardware_devices h LEFT JOIN virtual_devices v ON v.id = h.virtual_device_id
             WHERE h.serial_number = ANY($1) ORDER BY h.id FOR UPDATE OF h`,
            [reports.map((r) => r.serialNumber)],
          )
        ).rows;
        const accepted = await writeBatch(async (text, values) => (await client.query(text, values)).rows, devices, reports, POSTGRES);
        await client.query('COMMIT');
        return accepted;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: async () => pool?.end(),
  };
}

function sqliteStore(file) {
  const dbPromise = import('better-sqlite3').then((m) => {
    const db = new m.default(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return db;
  });
  const statements = new Map();
  return {
    async ingest(reports) {
      const db = await dbPromise;
      const run = (text, values) => {
        let statement = statements.get(text);
        if (!statement) statements.set(text, (statement = db.prepare(text)));
        return statement.reader ? statement.all(values) : (statement.run(values), []);
      };
      // better-sqlite3 is synchronous: writeBatch's awaits only ever wait on
      // finished values, so no other request of this process runs inside the transaction
      run('BEGIN IMMEDIATE', []);
      try {
        const serials = reports.map((r) => r.serialNumber);
        const devices = run(
          `SELECT h.id, h.serial_number, h.company_id, v.network_id FROM hardware_devices h LEFT JOIN virtual_devices v ON v.id = h.virtual_device_id
           WHERE h.serial_number IN (${serials.map(() => '?').join(', ')}) ORDER BY h.id`,
          serials,
        );
        const accepted = await writeBatch(run, devices, reports, SQLITE);
        run('COMMIT', []);
        return accepted;
      } catch (error) {
        if (db.inTransaction) run('ROLLBACK', []);
        throw error;
      }
    },
    close: async () => (await dbPromise).close(),
  };
}

function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('ingest-floor: DATABASE_URL is required');
  const options = { url, port: Number(process.env.PORT ?? 4200), host: process.env.HOST ?? '127.0.0.1' };
  runWorkers(Number(process.env.WORKERS ?? 2), () => startWorker(options));
}

main();
