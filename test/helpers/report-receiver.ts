import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { checkReport } from './report-protocol.js';

/** One request the receiver got, its body decoded. */
export interface ReceivedRequest {
  readonly headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  readonly reports: any[];
  /** The status it was answered with. */
  readonly status: number;
}

/** A scripted answer for one of the next requests instead of the normal one. */
export interface ScriptedFailure {
  readonly status: number;
  readonly retryAfter?: string;
  /** Stores the batch before failing, as a server whose answer was lost after its commit. */
  readonly afterStoring?: boolean;
}

/** A local stand-in for `POST /api/v1/reports`: stores reports by id, dedupes, rejects what breaks the protocol. */
export interface ReportReceiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  readonly stored: Map<string, any>;
  close(): Promise<void>;
}

function answer(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Starts a receiver on 127.0.0.1, port 0. It answers the first requests with
 * `failures` in order, then like the protocol: `{accepted, duplicates, rejected}`.
 * Reports of serial numbers outside `serials` (when given) are rejected UNAUTHORIZED.
 */
export async function startReportReceiver(options: { failures?: ScriptedFailure[]; serials?: readonly string[] } = {}): Promise<ReportReceiver> {
  const failures = [...(options.failures ?? [])];
  const requests: ReceivedRequest[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  const stored = new Map<string, any>();
  const store = (reports: { reportId: string }[]) => {
    let accepted = 0;
    let duplicates = 0;
    const rejected: { index: number; code: string; path: string; message: string }[] = [];
    reports.forEach((report, index) => {
      const problem = checkReport(report, `reports[${index}]`)[0];
      if (problem) rejected.push({ index, code: 'BAD_USER_INPUT', path: problem.path, message: problem.message });
      else if (options.serials && !options.serials.includes((report as { serialNumber?: string }).serialNumber ?? '')) {
        rejected.push({ index, code: 'UNAUTHORIZED', path: `reports[${index}].serialNumber`, message: 'unknown serial number' });
      } else if (stored.has(report.reportId)) duplicates++;
      else {
        stored.set(report.reportId, report);
        accepted++;
      }
    });
    return { accepted, duplicates, rejected };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const reports = (JSON.parse(text) as { reports: { reportId: string }[] }).reports;
      const failure = failures.shift();
      const status = failure?.status ?? 200;
      requests.push({ headers: req.headers, reports, status });
      if (failure === undefined) return answer(res, 200, store(reports));
      if (failure.afterStoring) store(reports);
      const headers: Record<string, string> = failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter };
      answer(res, failure.status, { errors: [{ message: `scripted ${failure.status}`, extensions: { code: 'SCRIPTED' } }], data: null }, headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stored,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
