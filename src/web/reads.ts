import { invariant } from '../errors.js';
import type { Executor } from '../graphql/execute.js';
import { isUuid } from '../graphql/scalars.js';
import type { Caller } from '../modules/api-key/api-key.service.js';

/**
 * What the dashboard pages read, as GraphQL documents run by the API's own
 * executor with the session's caller: the same compiled statements and the
 * same company scoping as an API key, one statement per page.
 */
const NETWORKS = /* GraphQL */ `
  query DashboardNetworks($slug: String!) {
    companyBySlug(slug: $slug) {
      networks { UUID label slug isActive mailingAddress { city subdivisionCode } virtualDevices { isOnline } }
    }
  }`;

// the schema has no root for one network, so its label, VLANs and SSIDs come from the company's list
const NETWORK = /* GraphQL */ `
  query DashboardNetwork($slug: String!, $id: UUID!) {
    companyBySlug(slug: $slug) {
      networks {
        UUID label slug isActive mailingAddress { city subdivisionCode }
        vlans { name vlanID isEnabled }
        ssids { ssid isEnabled }
      }
    }
    virtualDevicesForNetwork(networkUUID: $id) {
      UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber isConnectedToBackend }
    }
    networkClients(networkUUID: $id) { macAddress ip lastSeen }
  }`;

/** A network as the list shows it. */
export interface NetworkSummary {
  readonly UUID: string;
  readonly label: string;
  readonly slug: string;
  readonly isActive: boolean;
  readonly mailingAddress: { readonly city: string | null; readonly subdivisionCode: string | null } | null;
  readonly deviceCount: number;
  readonly onlineCount: number;
}

/** A device row of the network page. */
export interface DeviceView {
  readonly UUID: string;
  readonly label: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  readonly isOnline: boolean;
  readonly hardwareDevice: { readonly serialNumber: string; readonly isConnectedToBackend: boolean } | null;
}

/** Everything the network page shows. */
export interface NetworkDetail {
  readonly network: Omit<NetworkSummary, 'deviceCount' | 'onlineCount'>;
  readonly devices: readonly DeviceView[];
  readonly clients: readonly { readonly macAddress: string; readonly ip: string | null; readonly lastSeen: string }[];
  readonly vlans: readonly { readonly name: string; readonly vlanID: number; readonly isEnabled: boolean }[];
  readonly ssids: readonly { readonly ssid: string; readonly isEnabled: boolean }[];
}

type NetworkData = Omit<NetworkSummary, 'deviceCount' | 'onlineCount'> & {
  virtualDevices?: { isOnline: boolean }[];
  vlans?: NetworkDetail['vlans'];
  ssids?: NetworkDetail['ssids'];
};

/** Where a read adds the statements it ran, for the request log line (the request's RequestContext). */
export interface StatementCounter {
  statements: number;
}

/** Creates the dashboard's reads over the API's executor. */
export function createDashboardReads(executor: Executor) {
  async function run(query: string, variables: Record<string, unknown>, caller: Caller, counter: StatementCounter): Promise<Record<string, unknown>> {
    const outcome = await executor.execute({ query, variables, operationName: null }, caller);
    invariant(outcome.kind === 'executed', 'dashboard-read-request-error');
    counter.statements += outcome.statements;
    const body = JSON.parse(outcome.body) as { data: Record<string, unknown> };
    return body.data;
  }

  return {
    /** The caller's company's networks with device and online counts, by label. */
    async networks(caller: Caller, counter: StatementCounter): Promise<NetworkSummary[]> {
      const data = await run(NETWORKS, { slug: caller.companySlug }, caller, counter);
      const company = data.companyBySlug as { networks: NetworkData[] } | null;
      return (company?.networks ?? []).map(({ virtualDevices = [], ...network }) => ({
        ...network,
        deviceCount: virtualDevices.length,
        onlineCount: virtualDevices.filter((d) => d.isOnline).length,
      }));
    },

    /** One network of the caller's company; undefined for a malformed id, another company's network or none. */
    async network(caller: Caller, id: string, counter: StatementCounter): Promise<NetworkDetail | undefined> {
      if (!isUuid(id)) return undefined;
      const data = await run(NETWORK, { slug: caller.companySlug, id }, caller, counter);
      const devices = data.virtualDevicesForNetwork as DeviceView[] | null;
      const clients = data.networkClients as NetworkDetail['clients'] | null;
      const company = data.companyBySlug as { networks: NetworkData[] } | null;
      const found = company?.networks.find((n) => n.UUID === id);
      if (devices === null || clients === null || found === undefined) return undefined;
      const { vlans = [], ssids = [], ...network } = found;
      return { network, devices, clients, vlans, ssids };
    },
  };
}

/** The dashboard's reads. */
export type DashboardReads = ReturnType<typeof createDashboardReads>;
