#!/usr/bin/env node
// What one request log line costs: the line netgraph writes per request at
// LOG_LEVEL=info, logged with pino into a pipe drained by another process (as
// stdout is under systemd or Docker), four ways: pino's synchronous
// destination (one write(2) per line: netgraph before), pino's asynchronous
// destination as is (sonic-boom, sync: false), netgraph's log
// (dist/observability/log.js: the asynchronous destination, fed the lines
// gathered over up to 16 KiB or 50 ms at once) written with pino's info(),
// the same log written with logRequest() (the line from a template, as
// netgraph writes it since 2026-11-26), and with the writer the GraphQL
// endpoint makes once for its logger (requestLineWriter(): the logger's
// constants read once, as bytes, since 2026-11-27). Reports the CPU time of this
// process per line, user + system, all threads: competing load disturbs it
// far less than throughput. `linesPerTurn` is how many lines each turn of the
// event loop logs: 20 is about what 2 workers at 10,000 req/s log per
// millisecond, 1 a server whose requests each get a turn of their own.
// Usage: npm run build && node bench/log-line.mjs [lines] [rounds] [linesPerTurn]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pino = createRequire(path.join(REPO, 'package.json'))('pino');
const { createProcessLog, logRequest, requestLineWriter } = await import(path.join(REPO, 'dist', 'observability', 'log.js'));

const LINES = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const PER_TURN = Number(process.argv[4] ?? 20);

const fields = (i) => ({
  requestId: `4c117ada-0000-4000-8000-${String(i).padStart(12, '0')}`,
  method: 'POST',
  path: '/api/v1/graphql',
  status: 200,
  clientAddress: '203.0.113.9',
  durationMs: 3.81,
  keyId: '81eebd9d-5a43-4c36-9c0e-3b9f4e0d1c2a',
  company: 'acme',
  operationName: 'VirtualDevice',
  sqlStatements: 1,
});

const info = (logger, line) => logger.info(line, 'request');
/** How to make each way's log on a file descriptor, and how it writes a line. */
const WAYS = {
  'pino, synchronous destination': [(fd) => pinoOn(pino.destination({ dest: fd, sync: true })), info],
  'pino, asynchronous destination': [(fd) => pinoOn(pino.destination({ dest: fd, sync: false, minLength: 0 })), info],
  "netgraph's log (asynchronous, gathered), info()": [(fd) => createProcessLog('info', fd), info],
  "netgraph's log, logRequest()": [(fd) => createProcessLog('info', fd), logRequest],
  "netgraph's log, its requestLineWriter()": [(fd) => withWriter(createProcessLog('info', fd)), (logger, line) => logger.writeLine(line)],
};

/** A process log whose logger carries the writer the GraphQL endpoint makes once for it. */
function withWriter(log) {
  const writeLine = requestLineWriter(log.logger);
  return { ...log, logger: { writeLine } };
}

function pinoOn(destination) {
  return {
    logger: pino({ level: 'info' }, destination),
    close: () => new Promise((resolve) => {
      destination.once('close', resolve);
      destination.end();
    }),
  };
}

/** CPU µs of this process per line, for LINES lines in turns of PER_TURN, all written before it stops. */
async function measure([make, write]) {
  const sink = spawn('sh', ['-c', 'cat > /dev/null'], { stdio: ['pipe', 'ignore', 'inherit'] });
  await once(sink, 'spawn');
  const log = make(sink.stdin._handle.fd);
  const started = process.cpuUsage();
  for (let i = 0; i < LINES; i += PER_TURN) {
    for (let j = i; j < i + PER_TURN; j++) write(log.logger, fields(j));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await log.close();
  const used = process.cpuUsage(started);
  sink.stdin.destroy();
  await once(sink, 'exit');
  return (used.user + used.system) / LINES;
}

for (let round = 1; round <= ROUNDS; round++) {
  const figures = [];
  for (const [name, way] of Object.entries(WAYS)) figures.push(`${name} ${(await measure(way)).toFixed(2)} µs`);
  console.log(`round ${round}, ${LINES} lines, ${PER_TURN} a turn, CPU per line: ${figures.join('; ')}`);
}
