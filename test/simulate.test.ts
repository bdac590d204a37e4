import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFleet } from '../src/tools/simulator/simulator.fleet.js';
import { createHttpSink, retryAfterMs } from '../src/tools/simulator/simulator.sink.js';
import type { SimulatedReport as Report } from '../src/tools/simulator/simulator.report.js';
import { runNetgraph, startNetgraph } from './helpers/cli.js';
import type { CliResult } from './helpers/cli.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { checkReport } from './helpers/report-protocol.js';
import { startReportReceiver } from './helpers/report-receiver.js';
import type { ReportReceiver, ScriptedFailure } from './helpers/report-receiver.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

const KEY = 'ngk_simulatortestkey000000000000000000000';

/** 250 reports of a small fleet over a few minutes. */
function someReports(): Report[] {
  const fleet = createFleet(
    [
      {
        id: 'n1',
        vlans: [{ vlanID: 10, name: 'Corp' }],
        ssids: ['Corp'],
        devices: Array.from({ length: 10 }, (_, i) => ({ serialNumber: `SIM-AP-${i}`, deviceType: i < 8 ? 'ACCESS_POINT' : 'CONTROLLER' })),
      },
    ],
    { seed: 1, intervalSeconds: 30 },
  );
  const reports: Report[] = [];
  for (let t = 1_795_000_000; reports.length < 250; t += 30) reports.push(...fleet.reportsAt(t));
  return reports.slice(0, 250);
}

describe('the HTTP report sink', () => {
  let receiver: ReportReceiver | undefined;
  const start = async (failures: ScriptedFailure[] = [], serials?: string[]) => {
    receiver = await startReportReceiver({ failures, ...(serials ? { serials } : {}) });
    return receiver;
  };
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('posts gzip batches of at most batchSize with the key, and re-sends the same reportIds after 429 and 500', async () => {
    const server = await start([{ status: 429, retryAfter: '1' }, { status: 500, afterStoring: true }]);
    const reports = someReports();
    const retries: string[] = [];
    const sink = createHttpSink({ url: `${server.url}/`, key: KEY, concurrency: 1, onRetry: (r) => retries.push(r.reason) });
    const result = await sink.send(reports);

    expect(retries).toEqual(['HTTP 429', 'HTTP 500']);
    expect(server.requests.map((r) => [r.status, r.reports.length])).toEqual([[429, 100], [500, 100], [200, 100], [200, 100], [200, 50]]);
    for (const request of server.requests) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-encoding': 'gzip', 'content-type': 'application/json' });
    }
    const ids = (i: number) => server.requests[i]?.reports.map((r: Report) => r.reportId);
    expect(ids(1)).toEqual(ids(0));
    expect(ids(2)).toEqual(ids(0));
    // the batch the server stored before its 500 comes back as duplicates
    expect(result).toEqual({ accepted: 150, duplicates: 100, rejected: [] });
    expect([...server.stored.keys()].sort()).toEqual(reports.map((r) => r.reportId).sort());
  });

  it('reports what the server rejected, by reportId and serial number', async () => {
    const server = await start([], ['SIM-AP-0', 'SIM-AP-1']);
    const reports = someReports().slice(0, 20);
    const broken = { ...(reports[0] as Report), macAddress: '0C:8D:DB:00:00:01' };
    const result = await createHttpSink({ url: server.url, key: KEY }).send([broken, ...reports.slice(1)]);
    expect(result.accepted).toBe(reports.slice(1).filter((r) => ['SIM-AP-0', 'SIM-AP-1'].includes(r.serialNumber)).length);
    expect(result.rejected[0]).toEqual({
      reportId: broken.reportId,
      serialNumber: 'SIM-AP-0',
      code: 'BAD_USER_INPUT',
      path: 'reports[0].macAddress',
      message: 'must be a lowercase MAC',
    });
    expect(result.rejected.slice(1).every((r) => r.code === 'UNAUTHORIZED' && r.path.endsWith('.serialNumber'))).toBe(true);
    expect(result.rejected.length + result.accepted).toBe(20);
  });

  it('stops at once when the key is refused, and gives up on a server that cannot be reached', async () => {
    const server = await start([{ status: 401 }]);
    await expect(createHttpSink({ url: server.url, key: KEY }).send(someReports().slice(0, 5))).rejects.toThrow(/refused the reports with HTTP 401: scripted 401/);
    expect(server.requests).toHaveLength(1);
    await server.close();
    await expect(createHttpSink({ url: server.url, key: KEY, maxAttempts: 2 }).send(someReports().slice(0, 5))).rejects.toThrow(
      /could not deliver reports to http:\/\/127\.0\.0\.1:\d+\/api\/v1\/reports after 2 attempts/,
    );
    receiver = undefined;
  });

  it('reads Retry-After as seconds or as an HTTP-date', () => {
    const now = Date.parse('2026-03-02T15:30:40Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Mon, 02 Mar 2026 15:30:45 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

/** Runs `netgraph simulate` until `ready`, then stops it with SIGTERM. */
async function runUntil(args: readonly string[], env: Record<string, string>, ready: () => boolean): Promise<CliResult> {
  const { child, result } = startNetgraph(args, env);
  const poll = setInterval(() => {
    if (!ready()) return;
    clearInterval(poll);
    child.kill('SIGTERM');
  }, 50);
  try {
    return await result;
  } finally {
    clearInterval(poll);
  }
}

describe.each(storeKinds())('netgraph simulate on %s', (kind) => {
  let database: TestDatabase;
  let receiver: ReportReceiver;
  const env = () => ({ DATABASE_URL: database.url });
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    expect((await runNetgraph(['migrate'], env())).code).toBe(0);
    expect((await runNetgraph(['import', '-'], env(), JSON.stringify(createFixture()))).code).toBe(0);
    receiver = await startReportReceiver({ failures: [{ status: 429, retryAfter: '1' }, { status: 500 }] });
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.drop();
  });

  it('sends an hour of a fixture company history, retrying, then stops on SIGTERM with a JSON summary', async () => {
    // live reports are due at each multiple of the interval since the epoch: a run that crossed one (the retries
    // take a second or two) would send a live report before its SIGTERM, so it does not start within 15 s of one
    const untilNextTick = 300_000 - (Date.now() % 300_000);
    if (untilNextTick < 15_000) await new Promise((resolve) => setTimeout(resolve, untilNextTick + 100));
    const started = Date.now();
    const args = ['simulate', '--company', 'acme', '--backfill', '1h', '--interval', '300', '--seed', '3', '--url', receiver.url, '--key', KEY, '--json'];
    const result = await runUntil(args, env(), () => receiver.requests.some((r) => r.status === 200));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0] as string);
    const stored = [...receiver.stored.values()] as Report[];
    expect(summary).toEqual({ devices: 3, reports: stored.length, backfillReports: stored.length, accepted: stored.length, duplicates: 0, rejected: 0 });

    // 12 report times, 5 minutes apart, ending at most 5 minutes ago; every report follows the protocol
    const times = [...new Set(stored.map((r) => Date.parse(r.observedAt)))].sort();
    expect(times).toHaveLength(12);
    expect(times.every((t, i) => i === 0 || t - (times[i - 1] as number) === 300_000)).toBe(true);
    expect(times.at(-1)).toBeGreaterThan(started - 301_000);
    expect(stored.flatMap((r, i) => checkReport(r, `reports[${i}]`))).toEqual([]);
    expect(new Set(stored.map((r) => r.serialNumber))).toEqual(new Set([SERIALS.acmeAp, SERIALS.acmeSwitch, SERIALS.acmeLabAp]));
    // the 429 and the 500 were retried with the same reports
    const [first, second, third] = receiver.requests.map((r) => r.reports.map((x: Report) => x.reportId).join());
    expect([second, third]).toEqual([first, first]);
    expect(receiver.requests[0]?.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-encoding': 'gzip' });
  });

  it.each([
    [['simulate', '--url', 'http://127.0.0.1:1'], /--key is required with --url/],
    [['simulate', '--backfill', '3 days', '--key', KEY], /--backfill must be a duration like 30m, 24h or 7d/],
    [['simulate', '--interval', '0', '--key', KEY], /--interval must be a whole number from 1 to 86400/],
    [['simulate', '--key', KEY], /an API key belongs to one company: name it with --company/],
    [['simulate', '--company', 'nobody', '--key', KEY], /No company with slug "nobody"/],
  ] as const)('%j fails and says what to do', async (args, message) => {
    const result = await runNetgraph(args, env());
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(1);
  });
});
