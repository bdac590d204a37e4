// Command-line options of bench/run.mjs.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { CASES } from './cases.mjs';
import { DEFAULT_SCALE, QUICK_SCALE, parseScale } from './dataset.mjs';
import { TARGETS } from './targets.mjs';

export const USAGE = `Usage: npm run bench -- [options]        (or: node bench/run.mjs [options])

  --quick               tiny data, 2 s runs, 1 round: checks the harness end to end (about 2 minutes)
  --scale CxNxDxK+B     companies x networks x devices x clients, + networks of the big company
                        (default 20x50x20x100+500)
  --rounds N            rounds per case, targets taking turns, in reverse every other round (default 3)
  --duration S          seconds per measured run (default 10)
  --warmup S            seconds of warm-up per case and target before the first round (default 2)
  --connections N       autocannon connections (default 32)
  --workers N           worker processes of every server (default 2)
  --side-by-side        load a case's targets all at once in each round, each with its own
                        --connections, instead of in turns: every target meets the same
                        moments of a noisy machine (for on/off and control comparisons;
                        the database's CPU is then shared and not shown per target; on 2
                        cores each serves a fraction of what it serves in turns, and where
                        the kernel's autogroup is on (as on this machine) every target's
                        processes get an equal share of the cores: docs/benchmarks.md)
  --targets LIST        comma-separated, from ${Object.keys(TARGETS).join(', ')}
                        (default all but netgraph-postgres-control; floor is always run)
  --cases LIST          comma-separated, from ${CASES.map((c) => c.id).join(', ')}, ingest (default all)
  --database NAME       PostgreSQL database to create, load and drop (default netgraph_bench)
  --docs / --no-docs    write the results into docs/benchmarks.md (default: only for a full default run)
  --note TEXT           a line about the conditions of the run, written with the results
  --keep                keep the database and the temp folder afterwards
  --report FILE         measure nothing: print the tables of a results file (bench/results/*.json),
                        and with --docs write them into docs/benchmarks.md

Environment: BENCH_ADMIN_DATABASE_URL, a PostgreSQL URL used to create and drop the benchmark
database (default postgres://<user>@127.0.0.1:5432/postgres). BENCH_CPU_PROF, a folder: netgraph's
processes run with node --cpu-prof and leave their CPU profiles there. BENCH_NODE_FLAGS, Node.js
flags for netgraph's processes, space-separated (--trace-gc, say: its lines go to their logs).`;

function positiveNumber(value, name) {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${value}"`);
  return n;
}

function list(value, known, name) {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((item) => !known.includes(item));
  if (unknown.length > 0) throw new Error(`--${name}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return items;
}

/** Parses argv into the run's options; throws with a message for a bad option. */
export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      scale: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      workers: { type: 'string' },
      targets: { type: 'string' },
      cases: { type: 'string' },
      database: { type: 'string' },
      docs: { type: 'boolean' },
      'no-docs': { type: 'boolean' },
      note: { type: 'string' },
      keep: { type: 'boolean' },
      'side-by-side': { type: 'boolean' },
      report: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  const quick = values.quick === true;
  const base = quick ? QUICK_SCALE : DEFAULT_SCALE;
  const scale = values.scale ? parseScale(values.scale, base) : base;
  const targets = values.targets ? list(values.targets, Object.keys(TARGETS), 'targets') : Object.keys(TARGETS).filter((t) => !TARGETS[t].optIn);
  if (!targets.includes('floor')) targets.push('floor');
  const known = [...CASES.map((c) => c.id), 'ingest'];
  const cases = values.cases ? list(values.cases, known, 'cases') : known;
  const isDefaultRun = !values.report && !values['side-by-side'] && !quick && !values.scale && !values.targets && !values.cases && !values.rounds && !values.duration;
  const database = values.database ?? 'netgraph_bench';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error('--database must be a plain lowercase identifier');
  return {
    help: values.help === true,
    quick,
    scale,
    scaleText: `${scale.companies}x${scale.networksPerCompany}x${scale.devicesPerNetwork}x${scale.clientsPerNetwork}+${scale.bigCompanyNetworks}`,
    rounds: values.rounds ? positiveNumber(values.rounds, 'rounds') : quick ? 1 : 3,
    duration: values.duration ? positiveNumber(values.duration, 'duration') : quick ? 2 : 10,
    warmup: values.warmup !== undefined ? Number(values.warmup) : quick ? 0.5 : 2,
    connections: values.connections ? positiveNumber(values.connections, 'connections') : 32,
    workers: values.workers ? positiveNumber(values.workers, 'workers') : 2,
    targets: Object.keys(TARGETS).filter((t) => targets.includes(t)),
    cases: CASES.filter((c) => cases.includes(c.id)),
    ingest: cases.includes('ingest'),
    database,
    adminUrl: process.env.BENCH_ADMIN_DATABASE_URL || `postgres://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/postgres`,
    docs: values['no-docs'] ? false : values.docs === true || isDefaultRun,
    note: values.note ?? null,
    keep: values.keep === true,
    sideBySide: values['side-by-side'] === true,
    report: values.report,
  };
}
