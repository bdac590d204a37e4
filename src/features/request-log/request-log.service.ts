import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { ApiKeyInfo, ApiKeyService } from '../api-key/api-key.service.js';
import { createRequestLogRepository, createRequestSets } from './request-log.repository.js';
import type { RequestFilter, RequestRow } from './request-log.repository.js';
import { createRequestLogWriter } from './request-log.writer.js';
import type { RequestLogWriterOptions } from './request-log.writer.js';

/** API_REQUEST_LOG and API_REQUEST_LOG_DAYS. */
export interface RequestLogSettings {
  /** Off: requests are not recorded (what was recorded stays readable until it expires). */
  readonly enabled: boolean;
  readonly retentionDays: number;
}

/** The defaults of the settings, for processes without a server config. */
export const DEFAULT_REQUEST_LOG_SETTINGS: RequestLogSettings = { enabled: true, retentionDays: 30 };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How far ahead day partitions are made, as for the raw series. */
const PARTITIONS_AHEAD_MS = 2 * DAY_MS;
/** The most requests one page lists. */
export const MAX_PAGE_SIZE = 500;

/** What a read of a key's log asks: a window back from now, filters, a page. */
export interface RequestQuery {
  /** How far back, in ms (at most the retention). */
  readonly sinceMs: number;
  /** `2xx`, `4xx`, `5xx` (any class) or one status such as `429`. */
  readonly status?: string;
  readonly operationName?: string;
  /** 1 for the newest. */
  readonly page?: number;
  readonly pageSize?: number;
}

/** A key's requests as read: the key, a page of requests, and the counts per hour and status over the whole window. */
export interface KeyRequests {
  readonly key: ApiKeyInfo;
  readonly since: string;
  readonly requests: readonly RequestRow[];
  /** True when a later page has more. */
  readonly more: boolean;
  readonly hourly: readonly { readonly hour: string; readonly status: number; readonly count: number }[];
}

/** The statuses a `status` filter names: a class (`4xx`) or one status (`429`); BAD_USER_INPUT otherwise. */
export function parseStatusFilter(status: string): readonly [number, number] {
  const value = status.trim().toLowerCase();
  const range = /^([1-5])xx$/.exec(value);
  if (range) return [Number(range[1]) * 100, Number(range[1]) * 100 + 99];
  if (/^[1-5]\d\d$/.test(value)) return [Number(value), Number(value)];
  throw new AppError('BAD_USER_INPUT', `status "${status}" is neither a class (2xx, 4xx, 5xx) nor a status such as 429.`, { field: 'status' });
}

/**
 * The per-key request log: the writer the HTTP layer records into (batched,
 * off the requests' path), reads of one key's requests scoped to the caller's
 * company, and retention, by day partitions on PostgreSQL (the raw series'
 * machinery, ingest/partitions.repository.ts) and row batches otherwise.
 */
export function createRequestLogService(
  store: Store,
  apiKeys: ApiKeyService,
  settings: RequestLogSettings = DEFAULT_REQUEST_LOG_SETTINGS,
  options: RequestLogWriterOptions & { readonly clock?: () => Date } = {},
) {
  const repository = createRequestLogRepository(store);
  const now = options.clock ?? (() => new Date());
  const writer = createRequestLogWriter(repository.insertRows, createRequestSets(), options);
  const retentionMs = settings.retentionDays * DAY_MS;

  return {
    settings,
    /** The writer requests are recorded into; undefined with API_REQUEST_LOG=off. */
    writer: settings.enabled ? writer : undefined,

    /**
     * A key's requests (by id or prefix, ApiKeyService.find) within
     * `companyId` when given: another company's key is NOT_FOUND, as a
     * missing one.
     */
    async requests(idOrPrefix: string, query: RequestQuery, companyId?: number): Promise<KeyRequests> {
      if (!(query.sinceMs > 0 && query.sinceMs <= retentionMs)) {
        throw new AppError('BAD_USER_INPUT', `since must be above 0 and at most ${settings.retentionDays} days (API_REQUEST_LOG_DAYS): requests are kept no longer.`, { field: 'since' });
      }
      const page = query.page ?? 1;
      const pageSize = query.pageSize ?? 50;
      if (!Number.isSafeInteger(page) || page < 1) throw new AppError('BAD_USER_INPUT', 'page must be a whole number from 1.', { field: 'page' });
      if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
        throw new AppError('BAD_USER_INPUT', `page size must be 1 to ${MAX_PAGE_SIZE}.`, { field: 'pageSize' });
      }
      const key = await apiKeys.find(idOrPrefix, companyId);
      const since = new Date(Math.floor((now().getTime() - query.sinceMs) / 1000) * 1000).toISOString();
      const filter: RequestFilter = {
        since,
        ...(query.status === undefined ? {} : { status: parseStatusFilter(query.status) }),
        ...(query.operationName === undefined || query.operationName === '' ? {} : { operationName: query.operationName }),
      };
      const rows = await repository.list(key.keyId, filter, pageSize + 1, (page - 1) * pageSize);
      const hourly = await repository.hourly(key.keyId, filter);
      const { keyId: _keyId, companyId: _companyId, ...info } = key;
      return {
        key: info,
        since,
        requests: rows.slice(0, pageSize),
        more: rows.length > pageSize,
        hourly: hourly.map((h) => ({ hour: new Date(h.hour * 1000).toISOString(), status: h.status, count: h.count })),
      };
    },

    /** PostgreSQL: today's partition and those of the next days exist (a no-op on SQLite). */
    async preparePartitions(): Promise<void> {
      if (!store.dialect.partitionsByTime) return;
      const at = now().getTime();
      await repository.preparePartitions(at - retentionMs, at + PARTITIONS_AHEAD_MS);
    },

    /**
     * Deletes requests older than API_REQUEST_LOG_DAYS: whole days by their
     * partition on PostgreSQL, then the rest (SQLite, PostgreSQL's DEFAULT
     * partition) `batchSize` rows per statement. Returns how many rows (or
     * partitions) went. Run by the telemetry retention task.
     */
    async expire(batchSize = 5_000): Promise<number> {
      const cutoff = now().getTime() - retentionMs;
      let deleted = 0;
      if (store.dialect.partitionsByTime) {
        const at = now().getTime();
        await repository.preparePartitions(at - HOUR_MS, at + PARTITIONS_AHEAD_MS);
        deleted += await repository.dropPartitionsBefore(cutoff);
      }
      for (;;) {
        const count = await repository.deleteBatch(new Date(cutoff).toISOString(), batchSize);
        deleted += count;
        if (count < batchSize) return deleted;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    /** Writes what waits now (tests; the timer does it every second). */
    flush: () => writer.flush(),
    /** Starts writing in the background; `onLost` is told of requests that could not be written, with their count. */
    start: (onLost: (lost: number, error: unknown) => void) => {
      if (settings.enabled) writer.start(onLost);
    },
    /** Writes what waits and stops (shutdown). */
    stop: () => writer.stop(),
  };
}

export type RequestLogService = ReturnType<typeof createRequestLogService>;
