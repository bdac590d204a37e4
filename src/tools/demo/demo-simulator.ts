import type { DatabaseTarget } from '../../config.js';
import { tryTakeSessionLock } from '../../db/session-lock.js';
import { isAppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import type { ImportCompany } from '../../platform/import/import.schema.js';
import { createFleet, fleetNetworksOf } from '../simulator/simulator.fleet.js';
import type { Fleet } from '../simulator/simulator.fleet.js';
import { runSimulator, sleepFor } from '../simulator/simulator.runner.js';
import type { SimulatorProgress } from '../simulator/simulator.runner.js';
import { createIngestSink } from '../simulator/simulator.sink.js';
import type { Services } from '../../services.js';

/** The slug of the company a first start loads (src/tools/demo/dataset.ts). */
export const DEMO_COMPANY_SLUG = 'acme';
/** How often each demo device reports. */
export const DEMO_INTERVAL_SECONDS = 30;
/** How much history the demo network gets at most when the simulator starts. */
export const DEMO_BACKFILL_SECONDS = 86_400;
/** The seed of `netgraph simulate`'s default, so its reports for the same times are duplicates of these. */
const DEMO_SEED = 1;
/** How long a process that did not get the lock (or failed) waits before it tries again. */
const RETRY_MS = 30_000;
/** The name of the lock the running demo simulator holds (db/session-lock.ts). */
export const DEMO_SIMULATOR_LOCK = 'demo-simulator';

/** Where the demo simulator tells what it does: the server's log. */
export interface DemoSimulatorLog {
  info(message: string): void;
  warn(details: object, message: string): void;
}

/** What the demo simulator runs on, and the knobs tests turn. */
export interface DemoSimulatorOptions {
  readonly services: Services;
  /** The store's target, for the lock that lets one process of many run it. */
  readonly database: DatabaseTarget;
  readonly log: DemoSimulatorLog;
  /** The clock in milliseconds (default Date.now); waits follow it, so a test moves time by hand. */
  readonly now?: () => number;
  /** Seconds between two reports of a device (default DEMO_INTERVAL_SECONDS); tests use long ones for a short backfill. */
  readonly intervalSeconds?: number;
  /** How often a wait looks at the clock again (default 1 s). */
  readonly pollMs?: number;
}

/** A running demo simulator. */
export interface DemoSimulator {
  /** Stops it: no report is stored after this resolves. */
  stop(): Promise<void>;
}

/**
 * Makes the demo company's devices report from inside this process: first
 * the history since its devices last reported (at most a day), then live
 * every interval, until stopped. Only the process holding the demo
 * simulator's lock runs it; the others try again now and then, so one takes
 * over when the holder ends. Does nothing when there is no demo company.
 * Failures go to the log and are retried; they never reach the caller.
 */
export function startDemoSimulator(options: DemoSimulatorOptions): DemoSimulator {
  const controller = new AbortController();
  let retry: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const attempt = () => {
    running = holdAndRun(options, controller.signal).then(
      (done) => {
        if (!done && !controller.signal.aborted) retry = setTimeout(attempt, RETRY_MS);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        options.log.warn({ err: error }, `demo simulator failed; retrying in ${RETRY_MS / 1000} s`);
        retry = setTimeout(attempt, RETRY_MS);
      },
    );
  };
  attempt();
  return {
    async stop() {
      controller.abort();
      clearTimeout(retry);
      await running;
    },
  };
}

/** Runs the simulator while holding the lock; false when another process holds it. */
async function holdAndRun(options: DemoSimulatorOptions, signal: AbortSignal): Promise<boolean> {
  const company = await findDemoCompany(options.services);
  if (company === undefined) return true;
  const lock = await tryTakeSessionLock(options.database, DEMO_SIMULATOR_LOCK);
  if (lock === undefined) return false;
  try {
    if (!signal.aborted) await run(options, company, signal);
    return true;
  } finally {
    await lock.release();
  }
}

async function findDemoCompany(services: Services): Promise<ImportCompany | undefined> {
  try {
    return (await services.imports.export(DEMO_COMPANY_SLUG)).companies[0];
  } catch (error) {
    if (isAppError(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
}

async function run(options: DemoSimulatorOptions, company: ImportCompany, signal: AbortSignal): Promise<void> {
  const { services, log } = options;
  const now = options.now ?? Date.now;
  const fleet = createFleet(fleetNetworksOf(company), { seed: DEMO_SEED, intervalSeconds: options.intervalSeconds ?? DEMO_INTERVAL_SECONDS });
  if (fleet.serialNumbers.length === 0) return;
  const { id } = await services.companies.getBySlug(DEMO_COMPANY_SLUG);
  // The report service scopes everything to caller.companyId and never looks at
  // the key, and a Caller may have no key (keyId null, as for a dashboard
  // user): so the simulator posts as its company without an API key, rather
  // than minting an ingest key whose value nothing would hold.
  const caller: Caller = { companyId: id, companySlug: DEMO_COMPANY_SLUG, keyId: null, keyUuid: null, label: 'demo simulator', scope: 'ingest' };
  const backfillSeconds = await backfillSince(services, id, fleet, now());
  log.info(`demo simulator: ${fleet.serialNumbers.length} devices of "${DEMO_COMPANY_SLUG}" report every ${fleet.intervalSeconds} s, after ${Math.round(backfillSeconds / 60)} minutes of history`);
  const pollMs = options.pollMs ?? 1_000;
  const summary = await runSimulator({
    fleet,
    // batches of 100: on SQLite a request waits at most for one of them (tens of milliseconds)
    sink: createIngestSink((reports) => services.reports.ingest(caller, reports), { batchSize: 100, signal }),
    backfillSeconds,
    signal,
    now,
    // a wait ends when the clock says so, checked every pollMs: the same as a timer on the real clock
    sleep: async (ms, abort) => {
      const until = now() + ms;
      while (!abort.aborted && now() < until) await sleepFor(Math.min(until - now(), pollMs), abort);
    },
    onProgress: createProgressLog(log),
    onRejected: (rejected) => log.warn({ rejected: rejected.slice(0, 5) }, `demo simulator: ${rejected.length} reports rejected`),
  });
  log.info(`demo simulator stopped: ${summary.reports} reports sent, ${summary.accepted} accepted, ${summary.duplicates} duplicates`);
}

/**
 * The history to send first: from the devices' latest report (what is there
 * already would only come back as duplicates) to now, at most a day.
 */
async function backfillSince(services: Services, companyId: number, fleet: Fleet, now: number): Promise<number> {
  const latest = await services.reports.latestReportAt(companyId, fleet.serialNumbers);
  return latest === null ? DEMO_BACKFILL_SECONDS : Math.min(DEMO_BACKFILL_SECONDS, Math.max(0, Math.ceil((now - Date.parse(latest)) / 1000)));
}

/** Backfill progress to the log every tenth, and when it is done. */
function createProgressLog(log: DemoSimulatorLog): (progress: SimulatorProgress) => void {
  let logged = -1;
  return (progress) => {
    if (progress.phase !== 'backfill' || progress.total === null || progress.total === 0) return;
    const tenth = Math.floor((progress.sent / progress.total) * 10);
    if (tenth <= logged) return;
    logged = tenth;
    log.info(`demo simulator: backfill ${progress.sent}/${progress.total} reports (${tenth * 10}%)`);
  };
}
