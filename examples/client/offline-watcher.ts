// Watches a company's devices and prints each one that goes offline or comes back, with the event log's record of it.
// NETGRAPH_API_KEY=ngk_… node dist/examples/client/offline-watcher.js [company] [--interval 30] [--once]
import { createClient, graphql, requireData } from 'netgraph/client';

const apiKey = process.env.NETGRAPH_API_KEY;
if (!apiKey) throw new Error('Set NETGRAPH_API_KEY to an API key of the company (npx netgraph keys create --company acme --label watcher).');
const client = createClient({ url: process.env.NETGRAPH_URL ?? 'http://127.0.0.1:4000', apiKey });
const company = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'acme';
const once = process.argv.includes('--once');
const intervalSeconds = Number(process.argv[process.argv.indexOf('--interval') + 1]) || 30;

const Fleet = graphql(`
  query Fleet($company: String!) {
    networksForCompany(companySlug: $company) { UUID label virtualDevices { UUID label isOnline } }
  }
`);

const StateEvents = graphql(`
  query StateEvents($network: UUID!, $limit: Int!, $offset: Int, $since: DateTime, $endTime: DateTime) {
    recentEventLogEventsPage(
      networkUUID: $network, limit: $limit, offset: $offset, startTime: $since, endTime: $endTime,
      typeAPINameFilter: ["DEVICE_OFFLINE", "DEVICE_ONLINE"]
    ) {
      total
      events { eventTypeAPIName generatedAt virtualDevice { label } }
    }
  }
`);

/** Each device's state at the last look, by UUID. */
const online = new Map<string, boolean>();
// the first round reports the last hour's changes
let since = new Date(Date.now() - 3_600_000).toISOString();

async function look(): Promise<void> {
  const now = new Date().toISOString();
  const networks = requireData(await client.request(Fleet, { company })).networksForCompany ?? [];
  for (const network of networks) {
    for (const device of network.virtualDevices) {
      const before = online.get(device.UUID);
      if (before !== device.isOnline && (before !== undefined || !device.isOnline)) {
        console.log(`${now} ${device.isOnline ? 'ONLINE ' : 'OFFLINE'} ${network.label} / ${device.label}`);
      }
      online.set(device.UUID, device.isOnline);
    }
    // every page of the network's state changes since the last round; the client asks for the next page itself
    for await (const event of client.eventLog(StateEvents, { network: network.UUID, since })) {
      console.log(`  log ${event.generatedAt} ${event.eventTypeAPIName} ${network.label} / ${event.virtualDevice?.label ?? '(deleted device)'}`);
    }
  }
  since = now;
}

await look();
while (!once) {
  await new Promise((resolve) => setTimeout(resolve, intervalSeconds * 1000));
  await look();
}
