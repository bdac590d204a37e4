// Reads offered at a fixed rate, whatever the answers' pace: an open loop.
// A closed loop (autocannon's connections, each waiting for its answer)
// slows down with the server and hides how long a request waited; here
// each request is sent at its slot and its latency counts from that slot,
// so a server that falls behind shows it in the percentiles (no
// coordinated omission).
import { Agent, request } from 'undici';

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Sends `rate` requests a second for `seconds` to `url`, taking `requests`
 * in turn (each `{ path, headers, body }`), and waits for the last answer.
 * An answer counts as failed unless it is a 200 with data and no errors
 * (reads while ingest moves lastSeen cannot be compared byte for byte).
 * `lateMs` is how far behind its slot the latest request left this process:
 * when it grows, the load generator itself fell behind.
 */
export async function runOpenLoop({ url, requests, rate, seconds }) {
  const dispatcher = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies = [];
  let failures = 0;
  let firstFailure;
  let lateMs = 0;
  const pending = [];
  const started = performance.now();
  const total = Math.floor(rate * seconds);
  const one = async (slot, chosen) => {
    try {
      const response = await request(`${url}${chosen.path}`, { method: 'POST', headers: chosen.headers, body: chosen.body, dispatcher });
      const text = await response.body.text();
      if (response.statusCode !== 200 || !text.startsWith('{"data":{') || text.includes('"errors"')) throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
      latencies.push(performance.now() - slot);
    } catch (error) {
      failures += 1;
      firstFailure ??= error.message;
    }
  };
  for (let i = 0; i < total; i++) {
    const slot = started + (i * 1000) / rate;
    const wait = slot - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    lateMs = Math.max(lateMs, performance.now() - slot);
    pending.push(one(slot, requests[i % requests.length]));
  }
  await Promise.all(pending);
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  return { rate, offered: total, completed: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures, firstFailure, lateMs };
}
