import { print, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { invariant } from '../kernel/errors.js';
import { DocumentCache } from '../engine/document.js';
import type { DocumentLimits } from '../engine/document.js';
import { createExecutor } from '../engine/execute.js';
import { isUuid } from '../kernel/formats.js';
import type { Caller } from '../kernel/caller.js';
import type { ReadService } from '../engine/read.service.js';
import { DEVICE_CHART_WINDOW } from './device-charts.js';
import { CHART_WINDOWS } from './network-charts.js';
import { AP_HEALTH, COLLECTOR_COMPANY, COLLECTOR_DEVICES, COLLECTOR_RANGES, COLLECTOR_TARGETS, DASHBOARD_DOCUMENTS, DEVICE_PAGE, DISCOVERED_DEVICES, EVENT_LOG, NETWORKS, NETWORK_MONITORING, NETWORK_PAGE, SECURITY_PAGE } from './documents.js';
import type { AdoptionNetwork, CollectorNetwork, CollectorRangeItem, CollectorTargetItem, DeviceDetail, DiscoveredDeviceItem, EventLog, MetricsWindow, NetworkDetail, NetworkListItem, NetworkMonitoring, Present, SecurityDetail } from './documents.js';
import type { TadaDocumentNode } from './graphql.js';
import type { ListQuery } from './search.view.js';
import { MAC_TABLE_PAGE_SIZE } from './mac-table.view.js';
import { CLIENT_PAGE_SIZE } from './network.view.js';

/** The first page without a search: what a page shows when the address asks for nothing else. */
const FIRST_PAGE: ListQuery = { search: '', page: 1 };

/** A list query as a root's search, limit and offset. */
const pageOf = (query: ListQuery, size: number) => ({ search: query.search === '' ? null : query.search, limit: size, offset: (query.page - 1) * size });

/** The request's context (its RequestContext): the reads add the statements they ran, and respect its deadline. */
export interface ReadContext {
  statements: number;
  readonly deadline?: number;
}

/** Which events of a network the event log page asks for. */
export interface EventQuery {
  readonly limit: number;
  readonly offset: number;
  readonly type: string | null;
  readonly device: string | null;
}

/**
 * The dashboard's documents are constants of documents.ts, well inside
 * these: the API's configurable document and complexity limits are there to
 * bound what API keys send, and must not break a page.
 */
const DASHBOARD_DOCUMENT_LIMITS: DocumentLimits = { maxTokens: 5000, maxDepth: 12, maxAliases: 50, maxDirectives: 50 };
const DASHBOARD_MAX_COMPLEXITY = 10_000;

/** The result with every root there; undefined when one answered null (not the caller's, or missing). */
function present<T extends object>(data: T): Present<T> | undefined {
  return Object.values(data).every((value) => value !== null && value !== undefined) ? (data as Present<T>) : undefined;
}

/**
 * Creates the dashboard's reads: the API's executor and read service over
 * the API's schema, with a document cache of its own (see above), so each
 * page runs one document of documents.ts with the same planning, compiled
 * statement and company scoping as an API key's.
 */
export function createDashboardReads(schema: GraphQLSchema, reads: ReadService) {
  const executor = createExecutor({ schema, documents: new DocumentCache(schema, DASHBOARD_DOCUMENT_LIMITS, DASHBOARD_MAX_COMPLEXITY, 10), reads });
  const texts = new Map<DocumentNode, string>();
  // the pages' documents are checked at start against the served schema, so a schema change that breaks one fails the server's start, not a page
  for (const document of DASHBOARD_DOCUMENTS) {
    const errors = validate(schema, document);
    invariant(errors.length === 0, `dashboard-document-invalid: ${errors[0]?.message ?? ''}`);
    texts.set(document, print(document));
  }

  /** Runs one of the dashboard's documents for the caller; its data, null where a root is not the caller's. */
  async function run<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables: Variables, caller: Caller, context: ReadContext): Promise<Result> {
    const query = texts.get(document);
    invariant(query !== undefined, 'dashboard-document-unknown');
    const operation = executor.prepare({ query, variables: variables as Record<string, unknown>, operationName: null }, caller);
    // the documents are constants: a request error here is a bug in them
    invariant(operation.kind === 'ready', `dashboard-read-request-error: ${operation.kind === 'ready' ? '' : `${operation.phase} ${operation.errors[0]?.message ?? ''}`}`);
    const outcome = await operation.run(context.deadline === undefined ? {} : { deadline: context.deadline });
    context.statements += outcome.statements;
    return (JSON.parse(outcome.body) as { data: Result }).data;
  }

  return {
    /** The caller's company's networks, by label. */
    async networks(caller: Caller, context: ReadContext): Promise<readonly NetworkListItem[]> {
      const data = await run(NETWORKS, { slug: caller.companySlug }, caller, context);
      return data.companyBySlug?.networks ?? [];
    },

    /**
     * One network of the caller's company with the page of its connected clients that `clients` asks for;
     * undefined for a malformed id, another company's network or none.
     */
    async network(caller: Caller, id: string, context: ReadContext, clients: ListQuery = FIRST_PAGE): Promise<NetworkDetail | undefined> {
      if (!isUuid(id)) return undefined;
      return present(await run(NETWORK_PAGE, { network: id, ...pageOf(clients, CLIENT_PAGE_SIZE) }, caller, context));
    },

    /** A network's series over `window` and its devices' latest DEVICE_OFFLINE events; undefined when the network is not the caller's. */
    async networkMonitoring(caller: Caller, id: string, window: MetricsWindow, context: ReadContext): Promise<NetworkMonitoring | undefined> {
      if (!isUuid(id)) return undefined;
      return present(await run(NETWORK_MONITORING, { network: id, window }, caller, context));
    },

    /**
     * A device of a network with its ports, the page of its MAC table that
     * `macTable` asks for, the radios it reported and its latest events; undefined when either is not the caller's, or the
     * device is not on that network.
     */
    async device(caller: Caller, networkId: string, deviceId: string, context: ReadContext, macTable: ListQuery = FIRST_PAGE): Promise<DeviceDetail | undefined> {
      if (!isUuid(networkId) || !isUuid(deviceId)) return undefined;
      const { durationSeconds, stepSeconds } = CHART_WINDOWS[DEVICE_CHART_WINDOW];
      const { search, limit, offset } = pageOf(macTable, MAC_TABLE_PAGE_SIZE);
      const variables = { network: networkId, device: deviceId, window: { durationSeconds, stepSeconds }, macSearch: search, macLimit: limit, macOffset: offset };
      const detail = present(await run(DEVICE_PAGE, variables, caller, context));
      if (!detail || detail.device.networkUUID !== networkId) return undefined;
      const serial = detail.device.hardwareDevice?.serialNumber;
      const health = serial !== undefined && detail.device.deviceType === 'ACCESS_POINT' ? ((await run(AP_HEALTH, { serial }, caller, context)).health ?? []) : [];
      return { ...detail, bssids: detail.bssids.filter((b) => b.accessPointSerialNumber === serial), health };
    },

    /**
     * Settings > Collectors: the company's networks with their devices and sources, its collector targets, and how
     * many discovered devices wait to be adopted or ignored (two statements).
     */
    async collectors(caller: Caller, context: ReadContext): Promise<{ networks: readonly CollectorNetwork[]; targets: readonly CollectorTargetItem[]; newDiscovered: number }> {
      const { companyBySlug: company, discovered } = await run(COLLECTOR_DEVICES, { slug: caller.companySlug }, caller, context);
      invariant(company !== null, 'dashboard-collectors-company-missing');
      const { targets } = await run(COLLECTOR_TARGETS, { company: company.uuid }, caller, context);
      return { networks: company.networks, targets: targets ?? [], newDiscovered: (discovered ?? []).filter((d) => d.state === 'NEW').length };
    },

    /** Settings > Collectors > Discovery ranges: the company's ranges (two statements). */
    async ranges(caller: Caller, context: ReadContext): Promise<readonly CollectorRangeItem[]> {
      const { companyBySlug: company } = await run(COLLECTOR_COMPANY, { slug: caller.companySlug }, caller, context);
      invariant(company !== null, 'dashboard-ranges-company-missing');
      return (await run(COLLECTOR_RANGES, { company: company.uuid }, caller, context)).ranges ?? [];
    },

    /** Settings > Collectors > Discovered: the company's discovered devices, and its networks to adopt them into. */
    async discovered(caller: Caller, context: ReadContext): Promise<{ devices: readonly DiscoveredDeviceItem[]; networks: readonly AdoptionNetwork[] }> {
      const { discovered, company } = await run(DISCOVERED_DEVICES, { slug: caller.companySlug }, caller, context);
      invariant(discovered !== null && company !== null, 'dashboard-discovered-company-missing');
      return { devices: discovered, networks: company.networks };
    },

    /** A page of a network's events, filtered; undefined when the network is not the caller's or the filtering device not the network's. */
    async eventLog(caller: Caller, networkId: string, query: EventQuery, context: ReadContext): Promise<EventLog | undefined> {
      if (!isUuid(networkId) || (query.device !== null && !isUuid(query.device))) return undefined;
      const variables = {
        network: networkId,
        limit: query.limit,
        offset: query.offset,
        types: query.type === null ? null : [query.type],
        devices: query.device === null ? null : [query.device],
      };
      const log = present(await run(EVENT_LOG, variables, caller, context));
      // a device of another network (or company) matches no event of this one: not a page of this log
      if (!log || (query.device !== null && !log.network.virtualDevices.some((d) => d.UUID === query.device))) return undefined;
      return log;
    },

    /** A network's security page with the IDS and IPS events from `offset`; undefined when the network is not the caller's. */
    async security(caller: Caller, networkId: string, limit: number, offset: number, context: ReadContext): Promise<SecurityDetail | undefined> {
      if (!isUuid(networkId)) return undefined;
      return present(await run(SECURITY_PAGE, { network: networkId, limit, offset }, caller, context));
    },
  };
}

/** The dashboard's reads. */
export type DashboardReads = ReturnType<typeof createDashboardReads>;
