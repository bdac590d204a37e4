// Sets one VLAN on every network of a company: renames it (and enables or disables it) where it exists, creates it where not.
// Prints the plan; --apply makes the changes, one mutation each. Needs a read_write key.
// NETGRAPH_API_KEY=ngk_… node dist/examples/client/bulk-vlan.js <company> <vlanID> <name> [--disabled] [--apply]
import { createClient, graphql, requireData } from 'netgraph/client';
import type { Result } from 'netgraph/client';

const apiKey = process.env.NETGRAPH_API_KEY;
if (!apiKey) throw new Error('Set NETGRAPH_API_KEY to a read_write key (npx netgraph keys create --company acme --label vlans --scope read_write).');
const [company, vlanArgument, name] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const vlanID = Number(vlanArgument);
if (!company || !Number.isInteger(vlanID) || !name) throw new Error('usage: bulk-vlan <company> <vlanID> <name> [--disabled] [--apply]');
const isEnabled = !process.argv.includes('--disabled');
const apply = process.argv.includes('--apply');
// mutations are never retried after a network error unless asked (they may have run); a 429 is always waited out
const client = createClient({ url: process.env.NETGRAPH_URL ?? 'http://127.0.0.1:4000', apiKey });

const Vlans = graphql(`
  query Vlans($company: String!) {
    networksForCompany(companySlug: $company) { UUID slug vlans { UUID name vlanID isEnabled } }
  }
`);

const UpdateVlan = graphql(`
  mutation UpdateVlan($vlan: UUID!, $name: String!, $isEnabled: Boolean!) {
    updateVLAN(input: { vlanUUID: $vlan, name: $name, isEnabled: $isEnabled }) { vlan { UUID name isEnabled } }
  }
`);

const CreateVlan = graphql(`
  mutation CreateVlan($network: UUID!, $name: String!, $vlanID: Int!, $isEnabled: Boolean!) {
    createVLAN(input: { networkUUID: $network, name: $name, vlanID: $vlanID, isEnabled: $isEnabled }) { vlan { UUID name isEnabled } }
  }
`);

/** Prints a mutation's outcome: done, or each error's code, where, and why. */
function report(slug: string, action: string, result: Result<unknown>): boolean {
  if (result.errors.length === 0) {
    console.log(`${slug}: ${action}: done`);
    return true;
  }
  for (const error of result.errors) {
    console.log(`${slug}: ${action}: ${error.extensions.code}${error.extensions.field ? ` (${error.extensions.field})` : ''}: ${error.message}`);
  }
  return false;
}

let failed = 0;
for (const network of requireData(await client.request(Vlans, { company })).networksForCompany ?? []) {
  const vlan = network.vlans.find((v) => v.vlanID === vlanID);
  if (vlan && vlan.name === name && vlan.isEnabled === isEnabled) {
    console.log(`${network.slug}: VLAN ${vlanID} is already "${name}", ${isEnabled ? 'enabled' : 'disabled'}`);
    continue;
  }
  const state = `"${name}", ${isEnabled ? 'enabled' : 'disabled'}`;
  const action = vlan ? `change VLAN ${vlanID} "${vlan.name}" to ${state}` : `create VLAN ${vlanID} ${state}`;
  if (!apply) {
    console.log(`${network.slug}: would ${action}`);
    continue;
  }
  const result = vlan
    ? await client.request(UpdateVlan, { vlan: vlan.UUID, name, isEnabled })
    : await client.request(CreateVlan, { network: network.UUID, name, vlanID, isEnabled });
  if (!report(network.slug, action, result)) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;
