// The ingest workload: a fleet of hardware devices of the bench data, each
// report of a fixed shape (20 clients, 12 of them wireless with a band, a
// channel and an SNR, as access points report them; 8 ports with counters;
// 2 uplink samples), posted in batches of 100 per company by concurrent senders.
// Bodies are built from per-device templates, so a fresh reportId and a
// later observedAt cost the sender a string join, not a JSON.stringify.
import { randomUUID } from 'node:crypto';
import { cpuDelta, cpuSeconds } from './procfs.mjs';

/** The fleet: 10,000 devices, each report 20 clients (12 wireless), 8 ports, 2 uplink samples, 100 reports a batch. */
export const FLEET = Object.freeze({ devices: 10_000, clients: 20, wireless: 12, ports: 8, uplinkSamples: 2, batch: 100, intervalSeconds: 30 });

/** Rows written per report that the benchmark counts as samples: port counter readings, uplink samples, client observations. */
export const SAMPLES_PER_REPORT = FLEET.ports + FLEET.uplinkSamples + FLEET.clients;

/** The rate at which the whole fleet reports once every interval, in reports per second. */
export const FLEET_RATE = FLEET.devices / FLEET.intervalSeconds;

const hex2 = (n) => (n & 0xff).toString(16).padStart(2, '0');

/** A locally administered MAC of device `d`, client `c` (c = 255: the device itself): no imported client has it. */
function mac(d, c) {
  return `02:be:${hex2(d >> 16)}:${hex2(d >> 8)}:${hex2(d)}:${hex2(c)}`;
}

/**
 * Up to `size` hardware devices assigned to a network, spread over the
 * companies, in batches of FLEET.batch devices of one company (an ingest
 * key speaks for one company).
 */
export function selectFleet(document, size = FLEET.devices) {
  const perCompany = document.companies.map((company) => ({
    company: company.slug,
    serials: company.networks.flatMap((n) => n.virtualDevices.flatMap((v) => (v.hardwareDevice ? [v.hardwareDevice.serialNumber] : []))),
  }));
  const picked = perCompany.map(() => 0);
  const devices = [];
  // round robin over companies, so the fleet's batches are spread over every company's key
  for (let progress = true; progress && devices.length < size; ) {
    progress = false;
    perCompany.forEach((c, i) => {
      if (devices.length >= size || picked[i] >= c.serials.length) return;
      devices.push({ company: c.company, serial: c.serials[picked[i]++], index: devices.length });
      progress = true;
    });
  }
  const batches = [];
  for (const c of perCompany) {
    const mine = devices.filter((d) => d.company === c.company);
    for (let i = 0; i < mine.length; i += FLEET.batch) batches.push({ company: c.company, devices: mine.slice(i, i + FLEET.batch) });
  }
  return { devices, batches };
}

/** The JSON of one device's report, split where the reportId and the times go. */
function reportTemplate(device) {
  const ports = [];
  for (let p = 1; p <= FLEET.ports; p++) {
    const base = (device.index + 1) * 1000 + p;
    ports.push({
      portNumber: p, label: p === 1 ? 'WAN 1' : `Port ${p}`, portType: 'COPPER', isEnabled: true, isConnected: true,
      isUplink: p === 1, isUplinkActive: p === 1 ? true : null, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: 1,
      counters: { rxBytes: base * 1500, txBytes: base * 900, rxPackets: base * 10, txPackets: base * 7, rxErrors: 0, txErrors: p === 3 ? 1 : 0 },
    });
  }
  const clients = [];
  for (let c = 0; c < FLEET.clients; c++) {
    const wireless = c < FLEET.wireless;
    clients.push({
      macAddress: mac(device.index, c), ip: `10.${(device.index >> 8) & 0xff}.${device.index & 0xff}.${c + 10}`, hostname: `client-${device.index}-${c}`,
      isWireless: wireless, signal: wireless ? -40 - c : null, vlanID: 10, ssid: wireless ? 'Bench-Corp' : null, portNumber: wireless ? null : 2 + (c % 7),
      ...(wireless ? { radioBand: c % 2 === 0 ? 'BAND_5G' : 'BAND_2_4G', channel: c % 2 === 0 ? 36 : 6, snr: 45 - c } : {}),
    });
  }
  const sample = (i) => `{"portNumber":1,"observedAt":"\u0000T${i}\u0000","latencyMs":${10 + i},"jitterMs":1.5,"lossPercent":0,"rxBitsPerSecond":1234567,"txBitsPerSecond":234567}`;
  const json = `{"reportId":"\u0000ID\u0000","serialNumber":${JSON.stringify(device.serial)},"observedAt":"\u0000T\u0000",` +
    `"uptimeSeconds":86400,"macAddress":"${mac(device.index, 255)}","interfaces":${JSON.stringify(ports)},` +
    `"uplinkSamples":[${sample(0)},${sample(1)}],"clients":${JSON.stringify(clients)}}`;
  return json.split('\u0000');
}

/**
 * Batch bodies of a fleet. Round r of the fleet observes at
 * `startMs + r * FLEET.intervalSeconds`; the uplink samples 20 s and 5 s
 * before it. `clock` is shared by every target of one database, so no
 * device ever gets an observedAt older than one it already reported.
 */
export function createBatchFactory(fleet, startMs) {
  const templates = new Map(fleet.devices.map((d) => [d.serial, reportTemplate(d)]));
  const clock = { next: 0 };
  const times = (round) => {
    const at = startMs + round * FLEET.intervalSeconds * 1000;
    return { T: new Date(at).toISOString(), T0: new Date(at - 20_000).toISOString(), T1: new Date(at - 5_000).toISOString() };
  };
  return {
    clock,
    /** The next batch: its company, its body and its report count. */
    next() {
      const i = clock.next++;
      const batch = fleet.batches[i % fleet.batches.length];
      const t = times(Math.floor(i / fleet.batches.length));
      const parts = batch.devices.map((d) =>
        templates.get(d.serial).map((piece, k) => (k % 2 === 0 ? piece : piece === 'ID' ? randomUUID() : t[piece])).join(''),
      );
      return { company: batch.company, reports: parts.length, body: `{"reports":[${parts.join(',')}]}` };
    },
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Posts batches for `seconds` with `senders` concurrent senders, each
 * waiting for its answer before the next; with `rate` (reports per second)
 * the batches start on a schedule instead, and only those due before the
 * end are sent: reports/s is then the reports of those batches over
 * `seconds` (the window they were scheduled in; answers still in flight at
 * its end are waited for and count), and `maxStartLagMs` says how far
 * behind its slot the latest-starting batch began, which grows when the
 * server does not keep up (a sender starts its next batch only once the last
 * is answered). Every answer must be 200 with all reports accepted, after
 * retrying a 503 as a collector would (the latency then includes the
 * retries). `request(batch)` gives the URL path and headers. With `limit`,
 * stops after that many batches.
 */
export async function runIngest({ url, factory, request, senders, seconds, rate, measure, limit = Infinity }) {
  const latencies = [];
  let reports = 0;
  let failures = 0;
  let firstFailure;
  let retries = 0;
  let firstRetry;
  const appBefore = measure ? cpuSeconds(measure.appPids()) : undefined;
  const dbBefore = measure ? cpuSeconds(await measure.dbPids()) : undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let scheduled = started;
  let begun = 0;
  let maxStartLagMs = 0;
  const send = async () => {
    while (performance.now() < deadline && begun < limit) {
      if (rate && scheduled >= deadline) break;
      begun += 1;
      const batch = factory.next();
      if (rate) {
        // the schedule of reports, whatever the size of this batch
        const at = scheduled;
        scheduled += (batch.reports / rate) * 1000;
        if (at > performance.now()) await new Promise((resolve) => setTimeout(resolve, at - performance.now()));
        maxStartLagMs = Math.max(maxStartLagMs, performance.now() - at);
      }
      const { path, headers } = request(batch);
      const t0 = performance.now();
      try {
        for (;;) {
          const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: batch.body });
          const text = await response.text();
          // a 503 stored nothing: a collector sends the same batch again, and so does this sender (counted)
          if (response.status === 503 && performance.now() < deadline) {
            retries += 1;
            firstRetry ??= text.slice(0, 300);
            continue;
          }
          const accepted = response.status === 200 ? JSON.parse(text).accepted : -1;
          if (accepted !== batch.reports) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
          break;
        }
        latencies.push(performance.now() - t0);
        reports += batch.reports;
      } catch (error) {
        failures += 1;
        firstFailure ??= error.message;
      }
    }
  };
  await Promise.all(Array.from({ length: senders }, send));
  const elapsed = rate ? seconds : (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const out = {
    reportsPerSecond: reports / elapsed,
    samplesPerSecond: (reports * SAMPLES_PER_REPORT) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    reports,
    batches: latencies.length,
    failures,
    firstFailure,
    retries,
    firstRetry,
    ...(rate ? { maxStartLagMs } : {}),
  };
  if (!measure) return out;
  const appCpu = cpuDelta(appBefore, cpuSeconds(measure.appPids()));
  const dbCpu = cpuDelta(dbBefore, cpuSeconds(await measure.dbPids()));
  return { ...out, appCpuPerReportMs: reports > 0 ? (appCpu * 1000) / reports : Number.NaN, dbCpuPerReportMs: reports > 0 ? (dbCpu * 1000) / reports : Number.NaN };
}
