import { gzipSync } from 'node:zlib';
import { SERIALS } from './fixture.js';
import type { Random } from './fuzz.js';
import type { RawRequest } from './raw-http.js';

/** Values a field of a report may get: right ones, wrong types, out of range, hostile. */
const ODD_VALUES: readonly unknown[] = [null, '', 'x', -1, 0, 1.5, 1e309 > 0 ? 1e308 : 0, 2 ** 53, true, [], {}, 'ZZ:ZZ', '\u0000', '🛰', 'x'.repeat(300)];

/** A time near now (the server's real clock): mostly valid, sometimes in the future, long past, or malformed. */
function time(random: Random): unknown {
  const offsets = [0, -30, -3600, 299, 3600, -49 * 3600, -10 * 86_400];
  if (random.chance(0.85)) return new Date(Date.now() + random.pick(offsets) * 1000).toISOString();
  return random.pick<unknown>(['2026-13-45T99:00:00Z', 'yesterday', 12, null, '2026-11-24 10:00:00', '2026-11-24T10:00:00']);
}

const mac = (random: Random) => Array.from({ length: 6 }, () => random.hex(2)).join(random.chance(0.9) ? ':' : '-');
const maybe = <T>(random: Random, value: () => T): unknown => (random.chance(0.9) ? value() : random.pick(ODD_VALUES));

const DEEP_MARK = 'deep-nesting:';

/** Body text with each depth marker replaced by arrays nested that deep. */
function deeplyNested(text: string): string {
  return text.replace(new RegExp(`"${DEEP_MARK}(\\d+)"`, 'g'), (_, depth: string) => `${'['.repeat(Number(depth))}1${']'.repeat(Number(depth))}`);
}

/** An event's details: mostly small, sometimes nested deep (past the details' limit, or the body's), sometimes with a prototype key. */
function details(random: Random): unknown {
  const kind = random.next();
  if (kind < 0.8) return { a: 1 };
  // a marker that deeplyNested() replaces once the body is text (JSON.stringify would recurse)
  if (kind < 0.9) return { nested: `${DEEP_MARK}${random.pick([31, 33, 600, 4100])}` };
  return JSON.parse(random.pick(['{"__proto__":{"polluted":true}}', '{"a":{"constructor":{"prototype":{"x":1}}}}', '{"constructor":"a name"}'])) as unknown;
}

/** One report, mostly well formed, with every section now and then and odd values mixed in. */
function generateReport(random: Random, reportIds: readonly string[]): unknown {
  if (random.chance(0.03)) return random.pick(ODD_VALUES);
  const report: Record<string, unknown> = {
    reportId: maybe(random, () => random.pick(reportIds)),
    serialNumber: maybe(random, () => random.pick([SERIALS.acmeAp, SERIALS.acmeSwitch, SERIALS.acmeLabAp, SERIALS.globexAp, 'M1A3-NONE-0001'])),
    observedAt: time(random),
  };
  if (random.chance(0.5)) report.uptimeSeconds = maybe(random, () => random.int(1_000_000));
  if (random.chance(0.5)) report.macAddress = maybe(random, () => mac(random));
  if (random.chance(0.4)) {
    report.interfaces = Array.from({ length: random.int(4) }, (_, i) => ({
      portNumber: maybe(random, () => i + random.int(2)),
      portType: maybe(random, () => random.pick(['COPPER', 'SFP', 'CELLULAR', 'WIRELESS', 'FIBRE'])),
      isUplink: maybe(random, () => random.chance(0.5)),
      nativeVLANID: maybe(random, () => random.pick([1, 10, 4094, 4095])),
      counters: random.chance(0.7) ? { rxBytes: maybe(random, () => random.int(1e9)), txBytes: 1, rxPackets: 1, txPackets: 1, rxErrors: 0, txErrors: 0 } : random.pick(ODD_VALUES),
    }));
  }
  if (random.chance(0.4)) {
    report.uplinkSamples = Array.from({ length: random.int(3) }, () => ({ portNumber: 1, observedAt: time(random), latencyMs: maybe(random, () => random.next() * 100), lossPercent: maybe(random, () => random.pick([0, 50, 100, 101])) }));
  }
  if (random.chance(0.3)) report.radios = Array.from({ length: random.int(3) }, () => ({ BSSID: maybe(random, () => mac(random)), radioBand: maybe(random, () => random.pick(['BAND_2_4G', 'BAND_5G', 'BAND_6G', 'BAND_60G'])) }));
  if (random.chance(0.5)) {
    report.clients = Array.from({ length: random.int(5) }, () => ({
      macAddress: maybe(random, () => mac(random)),
      isWireless: maybe(random, () => random.chance(0.5)),
      signal: maybe(random, () => -random.int(100)),
      vlanID: maybe(random, () => random.pick([1, 10, 5000])),
      ssid: maybe(random, () => random.pick(['Acme-Corp', 'x'.repeat(40)])),
    }));
  }
  if (random.chance(0.3)) report.events = [{ type: maybe(random, () => random.pick(['DEVICE_BOOT', 'lower', 'DEVICE_ONLINE'])), observedAt: time(random), details: maybe(random, () => details(random)) }];
  if (random.chance(0.2)) report.temperatureCelsius = maybe(random, () => random.pick([21.5, -50, 151]));
  if (random.chance(0.2)) {
    report.outlets = Array.from({ length: random.int(4) }, () => ({
      outletNumber: maybe(random, () => random.pick([1, 2, 0, 1025])),
      isOn: maybe(random, () => random.chance(0.5)),
      powerWatts: maybe(random, () => random.next() * 500),
      energyKWh: maybe(random, () => random.next() * 100),
    }));
  }
  if (random.chance(0.3)) report.interfaces = random.pick(ODD_VALUES);
  return report;
}

/** One hostile request to POST /api/v1/reports: batches of odd reports, odd bodies, wrong keys, gzip. */
export function generateReportRequest(random: Random, keys: { ingest: string; read: string }): RawRequest {
  const reportIds = Array.from({ length: 8 }, () => random.uuid());
  let body: Buffer;
  const kind = random.next();
  if (kind < 0.8) {
    const count = random.pick([1, 2, 5, 20, 0, 501]);
    body = Buffer.from(deeplyNested(JSON.stringify({ reports: Array.from({ length: count }, () => generateReport(random, reportIds)) })));
  } else if (kind < 0.96) {
    body = Buffer.from(random.pick(['', '{', 'null', '[]', '{"reports":{}}', '{"reports":"x"}', '{"reports":[1,2,3]}', `{"reports":${'['.repeat(5000)}${']'.repeat(5000)}}`]));
  } else {
    // over the 5 MiB limit, 5.5 to 12 MiB as `kind` goes from 0.96 to 1: no draw of its own, so a seed's other requests stay as they were
    body = Buffer.from(JSON.stringify({ reports: [{ pad: 'x'.repeat(Math.round((5.5 + (kind - 0.96) * 162.5) * 1024 * 1024)) }] }));
  }
  const headers: [string, string][] = [];
  const auth = random.chance(0.85) ? `Bearer ${keys.ingest}` : random.pick([`Bearer ${keys.read}`, `Bearer ${keys.ingest}x`, 'Bearer', '']);
  if (auth !== '') headers.push(['Authorization', auth]);
  headers.push(['Content-Type', random.chance(0.9) ? 'application/json' : random.pick(['text/plain', 'application/x-www-form-urlencoded', ''])]);
  if (random.chance(0.2)) {
    headers.push(['Content-Encoding', random.pick(['gzip', 'gzip', 'br', 'deflate'])]);
    if (random.chance(0.8)) body = gzipSync(body);
  }
  const method = random.chance(0.03) ? random.pick(['GET', 'PUT', 'DELETE']) : 'POST';
  return { method, path: '/api/v1/reports', headers, body };
}

/** What is wrong with a 200 answer of the report endpoint, or undefined when it is `{accepted, duplicates, rejected}`. */
export function ingestAnswerProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return 'not an object';
  const record = body as Record<string, unknown>;
  if (Object.keys(record).join(',') !== 'accepted,duplicates,rejected') return `keys ${Object.keys(record).join(',')}`;
  if (!Number.isInteger(record.accepted) || !Number.isInteger(record.duplicates) || !Array.isArray(record.rejected)) return 'wrong types';
  for (const rejection of record.rejected as Record<string, unknown>[]) {
    if (Object.keys(rejection).join(',') !== 'index,code,path,message') return `rejection with keys ${Object.keys(rejection).join(',')}`;
    if (rejection.code !== 'BAD_USER_INPUT' && rejection.code !== 'UNAUTHORIZED') return `rejection code ${String(rejection.code)}`;
    if (typeof rejection.path !== 'string' || !String(rejection.path).startsWith(`reports[${String(rejection.index)}]`)) return `rejection path ${String(rejection.path)}`;
  }
  return undefined;
}
