// The chaos run's client: mixed GraphQL reads, writes (createNetwork) and
// device reports through the load balancer, every request recorded with when
// it was sent and answered, its status (0: no answer) and its key.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const REQUEST_TIMEOUT_MS = 15_000;
const READ = JSON.stringify({ query: 'query ChaosRead { companyBySlug(slug: "acme") { slug name } }' });
const WRITE =
  'mutation ChaosWrite($input: CreateNetworkInput!) { createNetwork(input: $input) { network { UUID slug } } }';

/** POSTs `body` as JSON with a bearer `key`; resolves { status, json } (status 0 when no answer came). */
function post(agent, url, key, body) {
  return new Promise((resolve) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      timeout: REQUEST_TIMEOUT_MS,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: parse(text) }));
      response.on('error', (error) => resolve({ status: 0, json: { title: error.message } }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve({ status: 0, json: { title: error.message } }));
    request.end(body);
  });
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a failed or unexpected answer said, kept short, for --keep's records.json. */
function noteOf(status, json) {
  if (status === 200 && json?.errors === undefined && json?.rejected?.length === 0) return undefined;
  if (status !== 0 && status !== 200 && status < 500) return undefined;
  return JSON.stringify(json?.errors?.[0]?.extensions?.code ?? json?.errors?.[0]?.message ?? json?.rejected?.[0] ?? json?.title ?? json ?? null).slice(0, 160);
}

/** Picks one of `items` at random. */
function pick(items) {
  return items[Math.floor(Math.random() * items.length)];
}

/**
 * Drives `concurrency` loops until stop() against `baseUrl`: 60% reads, 20%
 * writes, 20% reports, each with a random key of its kind (revoked ones
 * included: keys.read etc. are arrays of { id, key }), times from `now()`. Returns the records,
 * the acknowledged network slugs and report ids, and stop().
 */
export function startLoad({ baseUrl, keys, serials, concurrency, runId, now }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const records = [];
  const ackedWrites = [];
  const ackedReports = [];
  let stopped = false;
  let counter = 0;

  async function once() {
    const roll = Math.random();
    const t0 = now();
    if (roll < 0.6) {
      const key = pick(keys.read);
      const { status, json } = await post(agent, `${baseUrl}/api/v1/graphql`, key.key, READ);
      const ok = status === 200 && json?.data?.companyBySlug?.slug === 'acme';
      records.push({ kind: 'read', keyId: key.id, t0, t1: now(), status: status === 200 && !ok ? -200 : status, note: noteOf(status, json) });
    } else if (roll < 0.8) {
      const key = pick(keys.write);
      const slug = `chaos-${runId}-${++counter}`;
      const body = JSON.stringify({ query: WRITE, variables: { input: { label: `Chaos ${counter}`, slug } } });
      const { status, json } = await post(agent, `${baseUrl}/api/v1/graphql`, key.key, body);
      const acked = status === 200 && json?.data?.createNetwork?.network?.slug === slug;
      if (acked) ackedWrites.push(slug);
      records.push({ kind: 'write', keyId: key.id, t0, t1: now(), status: status === 200 && !acked ? -200 : status, note: noteOf(status, json) });
    } else {
      const key = pick(keys.ingest);
      const reportId = randomUUID();
      const body = JSON.stringify({ reports: [{ reportId, serialNumber: pick(serials), observedAt: new Date().toISOString(), uptimeSeconds: 60 }] });
      const { status, json } = await post(agent, `${baseUrl}/api/v1/reports`, key.key, body);
      const acked = status === 200 && json?.accepted + json?.duplicates === 1;
      if (acked) ackedReports.push(reportId);
      records.push({ kind: 'report', keyId: key.id, t0, t1: now(), status: status === 200 && !acked ? -200 : status, note: noteOf(status, json) });
    }
  }

  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) await once();
  });
  return {
    records,
    ackedWrites,
    ackedReports,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}
