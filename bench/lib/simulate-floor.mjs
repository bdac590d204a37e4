// The floor of the simulator benchmark, run as a process of its own: what any sender of the same traffic must do.
// It POSTs one pre-built gzip body of real simulated reports (the same batch size as `netgraph simulate`) over
// keep-alive connections, `requests` times at each multiple of the interval for `ticks` ticks, `concurrency` at once,
// with node:http alone; then prints one JSON line: its CPU over those ticks (process.cpuUsage) and how long each tick's
// requests took from its time.
//   node bench/lib/simulate-floor.mjs URL BODY_FILE REQUESTS_PER_TICK INTERVAL_SECONDS TICKS [CONCURRENCY]
import fs from 'node:fs';
import http from 'node:http';

const [url, bodyFile, requestsText, intervalText, ticksText, concurrencyText] = process.argv.slice(2);
const body = fs.readFileSync(bodyFile);
const requests = Number(requestsText);
const intervalMs = Number(intervalText) * 1000;
const ticks = Number(ticksText);
const concurrency = Number(concurrencyText ?? 4);
const target = new URL('/api/v1/reports', url);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const headers = { authorization: 'Bearer ngk_floor', 'content-type': 'application/json', 'content-encoding': 'gzip' };

function post() {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function sendTick() {
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      next += 1;
      await post();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const sleepUntil = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));
// one tick of warm-up (connections, JIT), then the measured ticks at their times
await sendTick();
let tick = Math.ceil(Date.now() / intervalMs) * intervalMs;
await sleepUntil(tick);
const before = process.cpuUsage();
const tickSeconds = [];
for (let i = 0; i < ticks; i++, tick += intervalMs) {
  await sleepUntil(tick);
  await sendTick();
  tickSeconds.push((Date.now() - tick) / 1000);
}
const cpu = process.cpuUsage(before);
agent.destroy();
process.stdout.write(`${JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, tickSeconds, requests: requests * ticks })}\n`);
