import { describe, expect, it } from 'vitest';
import { buildSeriesRows } from './report.rows.js';
import type { FreshReport } from './report.rows.js';

const device = { id: 1, virtualDeviceId: 11, networkId: 5 } as unknown as FreshReport['device'];

/** A report of the device at `seconds` past 12:00 listing one wireless client. */
function report(seconds: number, client: Record<string, unknown>): FreshReport {
  const observedAt = new Date(Date.UTC(2026, 10, 29, 12, 0, seconds)).toISOString();
  const base = { macAddress: 'aa:00:00:00:00:01', isWireless: true, radioBand: '5', channel: 36, signal: null, snr: null, rxRateMbps: null, txRateMbps: null, rxBytes: null, txBytes: null, hwMode: null, ssid: null, vlanID: null };
  return { device, report: { reportId: `r${seconds}`, observedAt, clients: [{ ...base, ...client }] } } as unknown as FreshReport;
}

describe("a client's 5-minute rollup from the reports of one request", () => {
  it('takes the last sample by time whatever the order, sums every sample, and grows its counters from the first to the last', () => {
    // one bucket (12:05 to 12:10): 12:07 first, then 12:08, then 12:06, each with its own SSID and counters
    const rows = buildSeriesRows(1, [
      report(420, { ssid: 'middle', signal: -50, snr: 30, rxBytes: 3000, txBytes: 300 }),
      report(480, { ssid: 'last', signal: -70, snr: 10, rxBytes: 200, txBytes: 50 }),
      report(360, { ssid: 'first', signal: -60, snr: null, rxBytes: 1000, txBytes: 100 }),
    ]).clientMetricRollups;
    expect(rows).toEqual([
      expect.objectContaining({
        bucket: Date.UTC(2026, 10, 29, 12, 5) / 1000,
        observed_at: '2026-11-29T12:08:00.000Z',
        ssid: 'last',
        rx_bytes: 200,
        first_observed_at: '2026-11-29T12:06:00.000Z',
        first_rx_bytes: 1000,
        first_tx_bytes: 100,
        // 1000 → 3000, then the counters fell (the client reconnected): 200 and 50 count whole
        rx_growth: 2000 + 200,
        tx_growth: 200 + 50,
        signal_sum: -180,
        signal_count: 3,
        snr_sum: 40,
        snr_count: 2,
        rx_rate_sum: 0,
        rx_rate_count: 0,
      }),
    ]);
  });

  it('makes no row for a sample without any metric', () => {
    expect(buildSeriesRows(1, [report(0, { ssid: 'quiet' })]).clientMetricRollups).toEqual([]);
  });
});
