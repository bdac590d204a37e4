import type { CollectedDevice, CollectorConfig } from './collector.config.js';
import { readTargetSettings } from '../kernel/snmp-target.js';

/** Where the device list says why a fetch failed or a target was skipped; never a credential. */
export interface CollectorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Where the collector asks netgraph for its company's targets (src/http/routes/collector-targets.route.ts). */
export const TARGETS_PATH = '/api/v1/collector/targets';

/** The devices a collector polls: its file's and the targets configured in netgraph, refreshed from the server. */
export interface DeviceSource {
  /** The devices as of the last refresh (the file's first). */
  devices(): readonly CollectedDevice[];
  /** Asks the server for the targets now; on failure keeps the last list and logs why (never a credential). */
  refresh(signal?: AbortSignal): Promise<void>;
  /** True when the last refresh is older than `targetsRefreshSeconds`. */
  due(): boolean;
}

/**
 * The devices of a collector: the configuration file's, then each target
 * the server answers for the collector's key (GET /api/v1/collector/targets,
 * credentials in the body of that one answer, held in memory only). A
 * target whose serial number the file polls already is left to the file's
 * device; an answer entry that breaks the configuration rules is skipped with
 * its path. With `targets: false` in the file it asks nothing.
 */
export function createDeviceSource(config: CollectorConfig, log: CollectorLog): DeviceSource {
  let fetched: readonly CollectedDevice[] = [];
  let refreshedAt = -Infinity;
  // the serial numbers the file names (a device configured without one is known by its own only once polled)
  const fileSerials = new Set(config.devices.flatMap((d) => (d.serialNumber === null ? [] : [d.serialNumber])));

  async function refresh(signal?: AbortSignal): Promise<void> {
    if (!config.targets) return;
    refreshedAt = performance.now();
    const body = await fetchFromServer(config, TARGETS_PATH, 'targets', log, signal);
    if (body !== undefined) fetched = readAnswer(body, fileSerials, log);
  }

  return {
    devices: () => [...config.devices, ...fetched],
    refresh,
    due: () => config.targets && performance.now() - refreshedAt >= config.targetsRefreshSeconds * 1000,
  };
}

/**
 * The JSON body of a collector's GET to the server (its targets, its
 * ranges) with its key; undefined when it could not be had, logged with why
 * (`what` names the list, kept as it was). Never logs the key or the body.
 */
export async function fetchFromServer(config: CollectorConfig, path: string, what: string, log: CollectorLog, signal?: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${config.server}${path}`, { headers: { authorization: `Bearer ${config.apiKey}` }, ...(signal ? { signal } : {}) });
  } catch (error) {
    log.warn({ server: config.server }, `${what} not fetched, keeping the last ones: ${(error as Error).message}`);
    return undefined;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    const why = response.status === 401 || response.status === 403 ? 'the server refused the key (it needs the ingest scope)' : `HTTP ${response.status}`;
    log.warn({ server: config.server, status: response.status }, `${what} not fetched, keeping the last ones: ${why}`);
    return undefined;
  }
  return response.json();
}

/** The answer's devices, each checked by the file's rules. */
function readAnswer(body: unknown, fileSerials: ReadonlySet<string>, log: CollectorLog): CollectedDevice[] {
  const list = (body as { devices?: unknown } | null)?.devices;
  if (!Array.isArray(list)) {
    log.warn({}, 'targets not read: the server\'s answer has no "devices" list');
    return [];
  }
  return list.flatMap((entry: unknown, i): CollectedDevice[] => {
    const { targetUUID, serialNumber } = (entry ?? {}) as { targetUUID?: unknown; serialNumber?: unknown };
    const { settings, problems } = readTargetSettings(entry, `devices[${i}]`);
    if (typeof targetUUID !== 'string' || typeof serialNumber !== 'string') problems.push(`devices[${i}]: has no targetUUID or serialNumber`);
    if (problems.length > 0) {
      log.warn({ targetUUID: typeof targetUUID === 'string' ? targetUUID : null }, `target skipped: ${problems.join('; ')}`);
      return [];
    }
    if (fileSerials.has(serialNumber as string)) {
      log.warn({ targetUUID, serialNumber }, 'target skipped: the configuration file polls this serial number already');
      return [];
    }
    return [{ ...settings, serialNumber: serialNumber as string, targetId: targetUUID as string }];
  });
}
