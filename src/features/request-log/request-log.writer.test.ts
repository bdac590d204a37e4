import { describe, expect, it } from 'vitest';
import { createRequestLogWriter } from './request-log.writer.js';
import type { KeyRequest } from './request-log.writer.js';

const request = (n: number): KeyRequest => ({
  at: n,
  keyId: 1,
  requestId: `r${n}`,
  method: 'POST',
  path: '/api/v1/graphql',
  operationName: null,
  rootFields: [],
  status: 200,
  errorCodes: [],
  cost: 1,
  durationMs: 1,
  statements: 1,
  clientAddress: null,
  userAgent: null,
});

describe('the request log writer', () => {
  it('writes what waits in batches of at most batchRows, in order', async () => {
    const batches: number[][] = [];
    const writer = createRequestLogWriter(async (rows) => void batches.push(rows.map((r) => r.at)), { batchRows: 2 });
    for (let n = 1; n <= 5; n++) writer.record(request(n));
    expect(batches).toEqual([]);
    await writer.flush();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(writer.pending).toBe(0);
  });

  it('drops what is past maxPending and a batch that fails, and reports the count at once, then at most once per period', async () => {
    let clock = 0;
    const reports: [number, unknown][] = [];
    let fail = true;
    const written: number[] = [];
    const writer = createRequestLogWriter(
      async (rows) => {
        if (fail) throw new Error('database down');
        written.push(...rows.map((r) => r.at));
      },
      { maxPending: 3, reportEveryMs: 60_000, now: () => clock },
    );
    writer.start((lost, error) => reports.push([lost, error]));
    try {
      for (let n = 1; n <= 4; n++) writer.record(request(n));
      // the fourth found the buffer full: reported at once
      expect(reports).toEqual([[1, undefined]]);
      await writer.flush();
      // the failed batch of three is lost; within the period, counted but not reported yet
      expect(reports).toHaveLength(1);
      clock = 60_000;
      writer.record(request(5));
      await writer.flush();
      expect(reports).toHaveLength(2);
      expect(reports[1]?.[0]).toBe(4);
      expect((reports[1]?.[1] as Error).message).toBe('database down');
      fail = false;
      writer.record(request(6));
      await writer.flush();
      expect(written).toEqual([6]);
    } finally {
      await writer.stop();
    }
  });
});
