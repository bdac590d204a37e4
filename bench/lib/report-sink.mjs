// A stand-in for netgraph's POST /api/v1/reports that stores nothing: it reads the (gzip) JSON batch and answers as
// netgraph does for new reports, {"accepted":n,"duplicates":0,"rejected":[]}, recording when each report arrived
// against its observedAt, so a benchmark of a sender measures the sender alone.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';

/** Starts the sink on 127.0.0.1 at a free port; `arrivals` holds `{ observedAtMs, arrivedMs }` per report. */
export async function startReportSink() {
  const arrivals = [];
  let requests = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/api/v1/reports') return void response.writeHead(404).end();
      const arrivedMs = Date.now();
      const raw = Buffer.concat(chunks);
      const { reports } = JSON.parse((request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
      for (const r of reports) arrivals.push({ observedAtMs: Date.parse(r.observedAt), arrivedMs });
      requests += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: reports.length, duplicates: 0, rejected: [] }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    requests: () => requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
