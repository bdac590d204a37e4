import { createChecks } from '../kernel/snmp-target.js';
import type { CollectorConfig } from './collector.config.js';
import { readDiscovery } from './collector.discovery.js';
import type { DiscoveryConfig } from './collector.discovery.js';
import { fetchFromServer } from './collector.targets.js';
import type { CollectorLog } from './collector.targets.js';

/** Where the collector asks netgraph for the discovery ranges of its key (src/http/routes/collector-targets.route.ts). */
export const RANGES_PATH = '/api/v1/collector/ranges';

/** A discovery range configured in netgraph, as one sweep's settings. */
export interface FetchedRange {
  readonly rangeId: string;
  readonly discovery: DiscoveryConfig;
}

/** The discovery ranges of a collector's key, refreshed from the server. */
export interface RangeSource {
  /** The ranges as of the last refresh. */
  ranges(): readonly FetchedRange[];
  /** Asks the server for the ranges now; on failure keeps the last list and logs why (never a credential). */
  refresh(signal?: AbortSignal): Promise<void>;
  /** When the next refresh is due (performance.now() ms); Infinity with `targets: false`. */
  dueAt(): number;
}

/**
 * The ranges the server answers for the collector's key (GET
 * /api/v1/collector/ranges: every collector's and its own, credentials in
 * that one answer, held in memory only), each swept as a configuration
 * file's `discovery` section with the range's own port, credentials, rate
 * and interval. An entry that breaks those rules is skipped with its path.
 * With `targets: false` in the file it asks nothing, as for targets.
 */
export function createRangeSource(config: CollectorConfig, log: CollectorLog): RangeSource {
  let fetched: readonly FetchedRange[] = [];
  let refreshedAt = -Infinity;
  return {
    ranges: () => fetched,
    async refresh(signal) {
      if (!config.targets) return;
      refreshedAt = performance.now();
      const body = await fetchFromServer(config, RANGES_PATH, 'discovery ranges', log, signal);
      if (body !== undefined) fetched = readAnswer(body, log);
    },
    dueAt: () => (config.targets ? refreshedAt + config.targetsRefreshSeconds * 1000 : Infinity),
  };
}

/** The answer's ranges, each checked by the rules of a file's `discovery`. */
function readAnswer(body: unknown, log: CollectorLog): FetchedRange[] {
  const list = (body as { ranges?: unknown } | null)?.ranges;
  if (!Array.isArray(list)) {
    log.warn({}, 'discovery ranges not read: the server\'s answer has no "ranges" list');
    return [];
  }
  return list.flatMap((entry: unknown, i): FetchedRange[] => {
    const { rangeUUID, range, snmp, port, ratePerSecond, intervalSeconds } = (entry ?? {}) as Record<string, unknown>;
    const problems: string[] = [];
    const discovery = readDiscovery(createChecks(problems), { ranges: [range], snmp: [snmp], port, ratePerSecond, intervalSeconds }, `ranges[${i}]`);
    if (typeof rangeUUID !== 'string') problems.push(`ranges[${i}]: has no rangeUUID`);
    if (problems.length > 0) {
      log.warn({ rangeId: typeof rangeUUID === 'string' ? rangeUUID : null }, `discovery range skipped: ${problems.join('; ')}`);
      return [];
    }
    return [{ rangeId: rangeUUID as string, discovery }];
  });
}
