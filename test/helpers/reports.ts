import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { TestApp, TestResponse } from './app.js';

/** The start of the report tests' clock: 2026-11-24T10:00:00Z. */
export const REPORT_EPOCH = Date.UTC(2026, 10, 24, 10, 0, 0);

/** An ISO time `seconds` after REPORT_EPOCH. */
export function at(seconds: number): string {
  return new Date(REPORT_EPOCH + seconds * 1000).toISOString();
}

/** A minimal report of `serialNumber` at `observedAt`, with a fresh reportId; `extra` adds sections. */
export function report(serialNumber: string, observedAt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { reportId: randomUUID(), serialNumber, observedAt, ...extra };
}

/** Creates an API key of a scope and returns its value. */
export async function createScopedKey(app: TestApp, scope: 'read' | 'read_write' | 'ingest', company = 'acme'): Promise<string> {
  return (await app.server.services.apiKeys.create({ companySlug: company, label: `${scope} key`, scope })).key;
}

/** POSTs a batch of reports (a body given as is when it is a string or a Buffer). */
export async function postReports(
  app: TestApp,
  key: string | null,
  body: unknown,
  options: { gzip?: boolean; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify({ reports: body });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.gzip) headers['content-encoding'] = 'gzip';
  return app.request('/api/v1/reports', { method: 'POST', headers, body: options.gzip ? gzipSync(text) : text });
}

/**
 * A report with every section (ports with counters, uplink samples, a radio,
 * clients, an event) of `serialNumber` at `observedAt` (ms), with a fresh
 * reportId; `n` varies the values, so reports of a batch differ.
 */
export function fullReport(serialNumber: string, observedAt: number, n: number): Record<string, unknown> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return report(serialNumber, iso(observedAt), {
    uptimeSeconds: 3600 + n,
    macAddress: '0c:8d:db:00:00:01',
    interfaces: [
      {
        portNumber: 1, label: 'WAN 1', portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true,
        isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: 1,
        counters: { rxBytes: 1000 * n, txBytes: 500 * n, rxPackets: 10 * n, txPackets: 5 * n, rxErrors: 0, txErrors: 0 },
      },
    ],
    uplinkSamples: [{ portNumber: 1, observedAt: iso(observedAt - 1000), latencyMs: 10 + (n % 7), jitterMs: 1, lossPercent: 0, rxBitsPerSecond: 1000 * n, txBitsPerSecond: 100 * n }],
    radios: [{ BSSID: '0c:8d:db:00:01:10', radioBand: 'BAND_5G', ssid: 'Acme-Corp', isActive: true }],
    clients: [
      { macAddress: `3c:22:fb:00:00:${(n % 200).toString(16).padStart(2, '0')}`, ip: '10.0.10.23', hostname: `client-${n}`, isWireless: true, signal: -50 - (n % 30), vlanID: 10, ssid: 'Acme-Corp', portNumber: null },
    ],
    events: [{ type: 'TEST_EVENT', observedAt: iso(observedAt - 500), details: { n } }],
  });
}
