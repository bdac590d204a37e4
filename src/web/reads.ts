import { Kind, NoUnusedFragmentsRule, isObjectType, parse, specifiedRules, validate } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { invariant } from '../errors.js';
import { DocumentCache } from '../graphql/document.js';
import type { DocumentLimits } from '../graphql/document.js';
import { createExecutor } from '../graphql/execute.js';
import { planSelection } from '../graphql/plan.js';
import { isUuid } from '../modules/formats/formats.js';
import type { Caller } from '../modules/api-key/api-key.service.js';
import type { Selection } from '../modules/read/read.repository.js';
import type { ReadService } from '../modules/read/read.service.js';
import { REPORT_DOCUMENTS, createReportReads } from './report-reads.js';

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

/**
 * The network page reads the network through the read model's own root for
 * one network (`networkByUUID`, which no Query field exposes) and its
 * connected clients, in one statement. The selections are fragments on the
 * schema's types, checked against the schema once at start.
 */
const NETWORK_PAGE = /* GraphQL */ `
  fragment DashboardNetwork on Network {
    UUID label slug isActive mailingAddress { line1 line2 city subdivisionCode postalCode }
    vlans { UUID name vlanID isEnabled isDefault description }
    ssids { UUID ssid isEnabled isGuest isHidden encryptionProtocol vlan { vlanID } }
    virtualDevices {
      UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber isConnectedToBackend }
      phyInterfaces { portNumber label connectedDevices { client { macAddress } } }
    }
  }
  fragment DashboardNetworkClient on NetworkClient {
    macAddress ip lastSeen clientName isWireless signal
    connectedVLAN { name vlanID } connectedSSID { ssid } accessPoint { UUID label }
  }`;

/** A network as the list shows it. */
export interface NetworkSummary {
  readonly UUID: string;
  readonly label: string;
  readonly slug: string;
  readonly isActive: boolean;
  readonly mailingAddress: {
    readonly line1?: string | null;
    readonly line2?: string | null;
    readonly city: string | null;
    readonly subdivisionCode: string | null;
    readonly postalCode?: string | null;
  } | null;
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
  /** Its ports from its latest report, with the wired clients on each. */
  readonly phyInterfaces: readonly {
    readonly portNumber: number;
    readonly label: string | null;
    readonly connectedDevices: readonly { readonly client: { readonly macAddress: string } | null }[];
  }[];
}

/** A connected client of the network page, with where it is connected. */
export interface ClientView {
  readonly macAddress: string;
  readonly ip: string | null;
  readonly lastSeen: string;
  readonly clientName: string | null;
  readonly isWireless: boolean;
  readonly signal: number | null;
  readonly connectedVLAN: { readonly name: string; readonly vlanID: number } | null;
  readonly connectedSSID: { readonly ssid: string } | null;
  readonly accessPoint: { readonly UUID: string; readonly label: string } | null;
}

/** Everything the network page shows. */
export interface NetworkDetail {
  readonly network: Omit<NetworkSummary, 'deviceCount' | 'onlineCount'>;
  readonly devices: readonly DeviceView[];
  readonly clients: readonly ClientView[];
  readonly vlans: readonly {
    readonly UUID: string;
    readonly name: string;
    readonly vlanID: number;
    readonly isEnabled: boolean;
    readonly isDefault: boolean;
    readonly description: string | null;
  }[];
  readonly ssids: readonly {
    readonly UUID: string;
    readonly ssid: string;
    readonly isEnabled: boolean;
    readonly isGuest: boolean;
    readonly isHidden: boolean;
    readonly encryptionProtocol: string | null;
    readonly vlan: { readonly vlanID: number } | null;
  }[];
}

type NetworkData = Omit<NetworkSummary, 'deviceCount' | 'onlineCount'> & { virtualDevices?: { isOnline: boolean }[] };

/** A network as the network page's fragment reads it. */
type NetworkPageData = NetworkDetail['network'] & {
  virtualDevices: NetworkDetail['devices'];
  vlans: NetworkDetail['vlans'];
  ssids: NetworkDetail['ssids'];
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
  const fragments = fragmentSelections(schema, NETWORK_PAGE);
  // the pages' documents are checked at start, so a schema change that breaks one fails the server's start, not a page
  for (const document of [NETWORKS, ...REPORT_DOCUMENTS]) {
    const errors = validate(schema, parse(document));
    invariant(errors.length === 0, `dashboard-document-invalid: ${errors[0]?.message ?? ''}`);
  }
  const networkPage = reads.compile(
    [
      { root: 'networkByUUID', selection: fragments('DashboardNetwork') },
      { root: 'networkClients', selection: fragments('DashboardNetworkClient') },
    ],
    // a session's caller has no API key to check
    false,
  );

  /** Runs one of the dashboard's documents (a constant of src/web/) for the caller; its data, null where a root is not the caller's. */
  async function run(query: string, variables: Record<string, unknown>, caller: Caller, context: ReadContext): Promise<Record<string, unknown>> {
    const operation = executor.prepare({ query, variables, operationName: null }, caller);
    // the documents are this file's constants: a request error here is a bug in them
    invariant(operation.kind === 'ready', `dashboard-read-request-error: ${operation.kind === 'ready' ? '' : `${operation.phase} ${operation.errors[0]?.message ?? ''}`}`);
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
      const result = await reads.run(networkPage, caller, [{ UUID: id }, { networkUUID: id }], context.deadline);
      context.statements += 1;
      const [network, clients] = result.roots;
      if (network === null || network === undefined || clients === null || clients === undefined) return undefined;
      const { virtualDevices: devices, vlans, ssids, ...rest } = JSON.parse(network) as NetworkPageData;
      return { network: rest, devices, clients: JSON.parse(clients) as NetworkDetail['clients'], vlans, ssids };
    },

    ...createReportReads(run),
  };
}

/**
 * The fragments of `source`, validated against the schema (a fragment no
 * operation uses is the point here), each planned into the read model's
 * selection as a field of its type would be.
 */
function fragmentSelections(schema: GraphQLSchema, source: string): (name: string) => Selection {
  const document = parse(source);
  const errors = validate(schema, document, specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule));
  invariant(errors.length === 0, `dashboard-fragment-invalid: ${errors[0]?.message ?? ''}`);
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  return (name) => {
    const fragment = fragments.get(name);
    const type = schema.getType(fragment?.typeCondition.name.value ?? '');
    invariant(fragment !== undefined && isObjectType(type), `dashboard-fragment-missing:${name}`);
    return planSelection(schema, type, [{ kind: Kind.FIELD, name: fragment.name, selectionSet: fragment.selectionSet }], fragments, {});
  };
}

/** The dashboard's reads. */
export type DashboardReads = ReturnType<typeof createDashboardReads>;
