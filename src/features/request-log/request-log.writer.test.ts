import { describe, expect, it } from 'vitest';
import { createRequestLogWriter } from './request-log.writer.js';
import type { KeyRequest, RequestGathering } from './request-log.writer.js';

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

/** The requests as they were recorded, as the rows to write. */
function inOrder(): RequestGathering<KeyRequest[]> {
  let requests: KeyRequest[] = [];
  return {
    add: (request) => void requests.push(request),
    get size() {
      return requests.length;
    },
    take() {
      const taken = requests;
      requests = [];
      return taken;
    },
  };
}

describe('the request log writer', () => {
  it('writes what waits in one batch, in order, and starts a flush once batchRows wait', async () => {
    const batches: number[][] = [];
    const writer = createRequestLogWriter(async (rows) => void batches.push(rows.map((r) => r.at)), inOrder(), { batchRows: 3, flushMs: 60_000 });
    for (let n = 1; n <= 2; n++) writer.record(request(n));
    await writer.flush();
    expect(batches).toEqual([[1, 2]]);
    expect(writer.pending).toBe(0);
    writer.start(() => undefined);
    try {
      for (let n = 3; n <= 5; n++) writer.record(request(n));
      // the third waiting request started a flush, before the timer's first
      await new Promise((resolve) => setImmediate(resolve));
      expect(batches).toEqual([[1, 2], [3, 4, 5]]);
    } finally {
      await writer.stop();
    }
  });

  it('writes what came during a write at the next flush, not at once, and makes one write of flushes asked for meanwhile', async () => {
    const batches: number[][] = [];
    let release = () => undefined as void;
    const writer = createRequestLogWriter(
      async (rows) => {
        batches.push(rows.map((r) => r.at));
        await new Promise<void>((resolve) => (release = resolve));
      },
      inOrder(),
      { flushMs: 60_000 },
    );
    writer.record(request(1));
    const first = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    // a busy server records on while its batch is written
    writer.record(request(2));
    writer.record(request(3));
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    expect(writer.pending).toBe(2);
    // flushes asked for during a write: one write after it, of everything recorded before them
    const second = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    writer.record(request(4));
    const third = writer.flush();
    writer.record(request(5));
    const fourth = writer.flush();
    expect(fourth).toBe(third);
    release();
    await second;
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
    release();
    await fourth;
    expect(writer.pending).toBe(0);
    await writer.stop();
    expect(batches).toHaveLength(3);
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
      inOrder(),
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
