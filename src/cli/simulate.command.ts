import type { Config } from '../config.js';
import { AppError } from '../kernel/errors.js';
import type { RejectedReport } from '../tools/simulator/simulator.sink.js';
import { createFleet, fleetNetworksOf } from '../tools/simulator/simulator.fleet.js';
import type { FleetNetworkInput } from '../tools/simulator/simulator.fleet.js';
import { runSimulator } from '../tools/simulator/simulator.runner.js';
import type { SimulatorProgress, SimulatorSummary } from '../tools/simulator/simulator.runner.js';
import { createHttpSink, createRoutingSink } from '../tools/simulator/simulator.sink.js';
import type { ReportSink } from '../tools/simulator/simulator.sink.js';
import type { CliIo, CommandContext } from './io.js';
import { integerOption, parseDuration, abortOnSignals } from './options.js';
import type { WithServices } from './options.js';

/** Rejections printed one by one; the rest are counted. */
const MAX_REJECTIONS_SHOWN = 20;

interface SimulatedCompany {
  readonly slug: string;
  readonly networks: FleetNetworkInput[];
  readonly key: string;
}

/**
 * The companies to simulate, with the key each posts with: the given one, or
 * a new `ingest` key per company ("netgraph simulate") when none is given.
 */
async function loadCompanies(config: Config, withServices: WithServices, slug: string | undefined, key: string | undefined): Promise<SimulatedCompany[]> {
  return withServices(config, async (services) => {
    const document = await services.imports.export(slug);
    const companies = document.companies
      .map((c) => ({ slug: c.slug, networks: fleetNetworksOf(c) }))
      .filter((c) => c.networks.some((n) => n.devices.length > 0));
    if (companies.length === 0) {
      throw new AppError('NOT_FOUND', `${slug === undefined ? 'No company' : `Company "${slug}"`} has hardware devices assigned to virtual devices: nothing to simulate.`);
    }
    if (key !== undefined && slug === undefined && companies.length > 1) {
      throw new AppError('BAD_USER_INPUT', 'an API key belongs to one company: name it with --company when you pass --key');
    }
    const simulated: SimulatedCompany[] = [];
    for (const company of companies) {
      const own = key ?? (await services.apiKeys.create({ companySlug: company.slug, label: 'netgraph simulate', scope: 'ingest' })).key;
      simulated.push({ ...company, key: own });
    }
    return simulated;
  });
}

/** Progress on a terminal: one line, rewritten in place. */
function progressLine(progress: SimulatorProgress): string {
  const n = (value: number) => value.toLocaleString('en-US');
  if (progress.phase === 'backfill' && progress.total !== null) {
    const percent = progress.total === 0 ? 100 : Math.floor((progress.sent / progress.total) * 100);
    return `backfill ${n(progress.sent)}/${n(progress.total)} reports (${percent}%)`;
  }
  return `live: ${n(progress.sent)} reports sent, latest at ${new Date(progress.at * 1000).toISOString().slice(11, 19)} UTC`;
}

function describe(summary: SimulatorSummary): string {
  return (
    `netgraph simulate: sent ${summary.reports} reports of ${summary.devices} devices (${summary.backfillReports} backfill): ` +
    `${summary.accepted} accepted, ${summary.duplicates} duplicates, ${summary.rejected} rejected.`
  );
}

/** Prints rejected reports to stderr, the first few one by one. */
function createRejectionPrinter(io: CliIo) {
  let shown = 0;
  return (rejected: readonly RejectedReport[]) => {
    for (const r of rejected) {
      if (shown++ < MAX_REJECTIONS_SHOWN) io.err(`rejected ${r.serialNumber} report ${r.reportId}: ${r.code} at ${r.path}: ${r.message}`);
      else if (shown === MAX_REJECTIONS_SHOWN + 1) io.err('more reports were rejected; the summary counts them all.');
    }
  };
}

/** One HTTP sink per company, with its key, behind a sink that routes each report by serial number; retries go to `io` when given. */
function createSink(companies: readonly SimulatedCompany[], url: string, signal: AbortSignal, io: CliIo | undefined): ReportSink {
  const routes = new Map<string, ReportSink>();
  for (const company of companies) {
    const sink = createHttpSink({
      url,
      key: company.key,
      signal,
      ...(io ? { onRetry: ({ reason, waitMs }) => io.err(`retrying in ${(waitMs / 1000).toFixed(1)} s (${reason})`) } : {}),
    });
    for (const network of company.networks) for (const device of network.devices) routes.set(device.serialNumber, sink);
  }
  return createRoutingSink(routes);
}

/**
 * `netgraph simulate`: every hardware device of the company (or of every
 * company) that is assigned to a virtual device posts simulated reports to
 * `POST /api/v1/reports`: `--backfill` of history first, then live every
 * `--interval` seconds until SIGINT or SIGTERM, then a summary.
 */
export async function simulate(context: CommandContext, withServices: WithServices): Promise<number> {
  const { values, config, io } = context;
  const intervalSeconds = integerOption(values.interval, 'interval', 1, 86_400) ?? 30;
  const seed = integerOption(values.seed, 'seed', 0, 0xffffffff) ?? 1;
  const backfillSeconds = typeof values.backfill === 'string' ? parseDuration(values.backfill, 'backfill') : 0;
  const url = typeof values.url === 'string' ? values.url : `http://127.0.0.1:${config.port}`;
  const key = typeof values.key === 'string' ? values.key : undefined;
  if (typeof values.url === 'string' && key === undefined) {
    throw new AppError('BAD_USER_INPUT', '--key is required with --url: an API key with the ingest scope, e.g. --key ngk_…');
  }
  const slug = typeof values.company === 'string' ? values.company : undefined;
  const companies = await loadCompanies(config, withServices, slug, key);
  const quiet = values.json === true;
  const terminal = !quiet && process.stderr.isTTY === true;
  const { controller, release } = abortOnSignals();
  try {
    const fleet = createFleet(companies.flatMap((c) => c.networks), { seed, intervalSeconds });
    if (!quiet) io.err(`netgraph simulate: ${fleet.serialNumbers.length} devices report to ${url} every ${intervalSeconds} s (seed ${seed}); Ctrl-C stops.`);
    const summary = await runSimulator({
      fleet,
      sink: createSink(companies, url, controller.signal, quiet ? undefined : io),
      backfillSeconds,
      signal: controller.signal,
      ...(terminal ? { onProgress: (p: SimulatorProgress) => process.stderr.write(`\r${progressLine(p)}\u001b[K`) } : {}),
      ...(quiet ? {} : { onRejected: createRejectionPrinter(io) }),
    });
    if (terminal) process.stderr.write('\n');
    io.out(quiet ? JSON.stringify(summary) : describe(summary));
    return 0;
  } finally {
    release();
  }
}
