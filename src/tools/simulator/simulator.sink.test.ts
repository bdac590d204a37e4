import { describe, expect, it } from 'vitest';
import type { Report } from '../../ingest/report.protocol.js';
import { createIngestSink } from './simulator.sink.js';

const reports = (n: number): Report[] =>
  Array.from({ length: n }, (_, i) => ({ reportId: `r${i}`, serialNumber: `S${i % 3}`, observedAt: '2026-11-24T10:00:00.000Z' }));

describe('createIngestSink', () => {
  it('hands the reports over in batches of at most batchSize and sums the answers, naming each rejected report', async () => {
    const sizes: number[] = [];
    const sink = createIngestSink(
      async (batch) => {
        sizes.push(batch.length);
        return { accepted: batch.length - 1, duplicates: 0, rejected: [{ index: 0, code: 'UNAUTHORIZED', path: 'reports[0].serialNumber', message: 'no' }] };
      },
      { batchSize: 100 },
    );
    const result = await sink.send(reports(250));
    expect(sizes).toEqual([100, 100, 50]);
    expect(result.accepted).toBe(247);
    expect(result.rejected.map((r) => r.reportId)).toEqual(['r0', 'r100', 'r200']);
    expect(result.rejected[1]).toMatchObject({ serialNumber: 'S1', code: 'UNAUTHORIZED', path: 'reports[0].serialNumber' });
  });

  it('never sends more than 500 at once, and stops before the next batch once its signal aborts', async () => {
    const controller = new AbortController();
    const sizes: number[] = [];
    const sink = createIngestSink(
      async (batch) => {
        sizes.push(batch.length);
        controller.abort(new Error('stopped'));
        return { accepted: batch.length, duplicates: 0, rejected: [] };
      },
      { batchSize: 10_000, signal: controller.signal },
    );
    await expect(sink.send(reports(1200))).rejects.toThrow('stopped');
    expect(sizes).toEqual([500]);
  });
});
