// Exports a company's inventory as CSV: one line per virtual device of every network, with its hardware.
// NETGRAPH_API_KEY=ngk_… node dist/examples/client/inventory-export.js [company] > inventory.csv
import { createClient, graphql, requireData } from 'netgraph/client';

const apiKey = process.env.NETGRAPH_API_KEY;
if (!apiKey) throw new Error('Set NETGRAPH_API_KEY to an API key of the company (npx netgraph keys create --company acme --label export).');
const client = createClient({ url: process.env.NETGRAPH_URL ?? 'http://127.0.0.1:4000', apiKey });
const company = process.argv[2] ?? 'acme';

const NetworkList = graphql(`
  query NetworkList($company: String!) {
    networksForCompany(companySlug: $company) { UUID slug label }
  }
`);

const Devices = graphql(`
  query Devices($network: UUID!) {
    virtualDevicesForNetwork(networkUUID: $network) {
      label deviceType deviceModel isOnline
      hardwareDevice { serialNumber isConnectedToBackend }
    }
  }
`);

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
function csv(value: string | boolean | null | undefined): string {
  const text = String(value ?? '');
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const networks = requireData(await client.request(NetworkList, { company })).networksForCompany ?? [];
console.log('network,device,type,model,serial,online,connected');
// one request per network: the client paces them by the key's limits, so a company of any size exports without a 429
for (const network of networks) {
  const devices = requireData(await client.request(Devices, { network: network.UUID })).virtualDevicesForNetwork ?? [];
  for (const device of devices) {
    const fields = [network.slug, device.label, device.deviceType, device.deviceModel, device.hardwareDevice?.serialNumber, device.isOnline, device.hardwareDevice?.isConnectedToBackend];
    console.log(fields.map(csv).join(','));
  }
}
