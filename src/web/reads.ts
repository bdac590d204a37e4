import type { GraphQLSchema } from 'graphql';
import { invariant } from '../errors.js';
import { DocumentCache } from '../graphql/document.js';
import type { DocumentLimits } from '../graphql/document.js';
import { createExecutor } from '../graphql/execute.js';
import { isUuid } from '../modules/formats/formats.js';
import type { Caller } from '../modules/api-key/api-key.service.js';
import type { ReadService } from '../modules/read/read.service.js';

/**
 * What the dashboard pages read, as GraphQL documents run by the API's
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
        vlans { UUID name vlanID isEnabled }
        ssids { UUID ssid isEnabled }
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
  readonly vlans: readonly { readonly UUID: string; readonly name: string; readonly vlanID: number; readonly isEnabled: boolean }[];
  readonly ssids: readonly { readonly UUID: string; readonly ssid: string; readonly isEnabled: boolean }[];
}

type NetworkData = Omit<NetworkSummary, 'deviceCount' | 'onlineCount'> & {
  virtualDevices?: { isOnline: boolean }[];
  vlans?: NetworkDetail['vlans'];
  ssids?: NetworkDetail['ssids'];
};

/** The request's context (its RequestContext): the reads add the statements they ran, and respect its deadline. */
export interface ReadContext {
  statements: number;
  readonly deadline?: number;
}

/**
 * The dashboard's documents are constants of this file, well inside these:
 * the API's configurable document and complexity limits are there to bound
 * what API keys send, and must not break a page.
 */
const DASHBOARD_DOCUMENT_LIMITS: DocumentLimits = { maxTokens: 5000, maxDepth: 12, maxAliases: 50, maxDirectives: 50 };
const DASHBOARD_MAX_COMPLEXITY = 10_000;

/**
 * Creates the dashboard's reads: the API's executor and read service over
 * the API's schema, with a document cache of its own (see above), so the
 * pages get the same planning, compiled statement and company scoping.
 */
export function createDashboardReads(schema: GraphQLSchema, reads: ReadService) {
  const executor = createExecutor({ schema, documents: new DocumentCache(schema, DASHBOARD_DOCUMENT_LIMITS, DASHBOARD_MAX_COMPLEXITY, 10), reads });

  async function run(query: string, variables: Record<string, unknown>, caller: Caller, context: ReadContext): Promise<Record<string, unknown>> {
    const operation = executor.prepare({ query, variables, operationName: null }, caller);
    // the id is checked before, so a request error here is a bug in this file's documents
    invariant(operation.kind === 'ready', 'dashboard-read-request-error');
    const outcome = await operation.run(context.deadline === undefined ? {} : { deadline: context.deadline });
    context.statements += outcome.statements;
    const body = JSON.parse(outcome.body) as { data: Record<string, unknown> };
    return body.data;
  }

  return {
    /** The caller's company's networks with device and online counts, by label. */
    async networks(caller: Caller, context: ReadContext): Promise<NetworkSummary[]> {
      const data = await run(NETWORKS, { slug: caller.companySlug }, caller, context);
      const company = data.companyBySlug as { networks: NetworkData[] } | null;
      return (company?.networks ?? []).map(({ virtualDevices = [], ...network }) => ({
        ...network,
        deviceCount: virtualDevices.length,
        onlineCount: virtualDevices.filter((d) => d.isOnline).length,
      }));
    },

    /** One network of the caller's company; undefined for a malformed id, another company's network or none. */
    async network(caller: Caller, id: string, context: ReadContext): Promise<NetworkDetail | undefined> {
      if (!isUuid(id)) return undefined;
      const data = await run(NETWORK, { slug: caller.companySlug, id }, caller, context);
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
