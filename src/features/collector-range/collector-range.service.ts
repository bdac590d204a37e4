import { randomUUID } from 'node:crypto';
import { AppError, invariant } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import type { Store } from '../../db/store.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { isGiven, notFound, requireSomeChange, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { rangesOverlap, readRangeSettings } from '../../kernel/snmp-range.js';
import type { RangeSettings } from '../../kernel/snmp-range.js';
import type { SnmpCredentials, SnmpInfo } from '../../kernel/snmp-target.js';
import type { SecretBox } from '../webhook/webhook.cipher.js';
import { openSnmp, refusal, sealSnmp, snmpInfoOf } from '../collector-target/collector-target.service.js';
import { createCollectorRangeRepository } from './collector-range.repository.js';
import type { CollectorRangeRepository, RangeRow, RangeValues } from './collector-range.repository.js';

/** A range's settings as given: the sweep's fields, and the collector that sweeps it. */
export interface RangeSettingsInput {
  /** An IPv4 CIDR range, at most a /16, no host bits set. */
  readonly range?: string;
  readonly port?: number | null;
  /** `{version: '2c', community}` or `{version: '3', user, level, authProtocol, authKey, privProtocol, privKey}`: the secrets are stored sealed, never shown. */
  readonly snmp?: Record<string, unknown>;
  readonly ratePerSecond?: number | null;
  readonly intervalSeconds?: number | null;
  /** The UUID of the ingest key of the one collector that sweeps it; null: every collector of the company. */
  readonly collectorKeyUUID?: string | null;
}

/** Changes to a range: absent fields stay; `snmp` replaces the credentials whole; `collectorKeyUUID: null` hands it to every collector. */
export interface UpdateRangeInput extends RangeSettingsInput {
  readonly rangeUUID: string;
}

/**
 * Whether a collector sweeps a range: ACTIVE (every collector of the
 * company does, or its one collector's key is valid), or why none does: its
 * collector's key was revoked, or has expired. Such a range is handed to no
 * other collector: its credentials were given for that one.
 */
export type RangeStatus = 'ACTIVE' | 'KEY_REVOKED' | 'KEY_EXPIRED';

/** A range as the API, the CLI and the audit log show it: never a community or key. */
export interface RangeInfo extends SnmpInfo {
  readonly UUID: string;
  readonly range: string;
  readonly port: number;
  readonly ratePerSecond: number;
  readonly intervalSeconds: number;
  /** The ingest key of the collector that sweeps it; null: every collector of the company. */
  readonly collectorKeyUUID: string | null;
  readonly collectorKeyLabel: string | null;
  /** Whether a collector sweeps it, and why none does. */
  readonly status: RangeStatus;
}

/** A range as a collector sweeps it, credentials opened. */
export interface CollectorRange {
  readonly rangeUUID: string;
  readonly range: string;
  readonly port: number;
  readonly snmp: SnmpCredentials;
  readonly ratePerSecond: number;
  readonly intervalSeconds: number;
}

/** A company's most discovery ranges. */
export const MAX_RANGES = 1000;

const SETTINGS = ['range', 'port', 'snmp', 'ratePerSecond', 'intervalSeconds'] as const;
const FIELDS = [...SETTINGS, 'collectorKeyUUID'] as const;

/** The context a range's credentials are sealed with: a sealed value copied to another range (or a target) does not open. */
function credentialsContext(rangeUuid: string): string {
  return `collector-range:${rangeUuid}:snmp`;
}

/**
 * Discovery ranges (docs/collector.md#ranges-in-netgraph): the CIDR ranges a
 * company's collectors sweep for SNMP agents, each by one collector (its
 * ingest key) or by every collector of the company. Writes are one audited
 * transaction each (`collector_range.create`, `.update`, `.delete`), whose
 * snapshots hold no secret; the credentials are sealed as a target's are and
 * opened only for the company's ingest keys (`forCollector`). Another
 * company's range answers like a missing one.
 */
export function createCollectorRangeService(deps: { store: Store; writes: WriteService; box: () => Promise<SecretBox>; now: () => Date }) {
  const { store, writes, now } = deps;

  return {
    /** Adds a range for the company's collectors (or the one named by its key) to sweep. */
    async create(caller: Caller, input: RangeSettingsInput): Promise<RangeInfo> {
      const settings = checkRange(input);
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const ranges = createCollectorRangeRepository(tx);
        const keyId = await collectorKeyOf(ranges, caller, input.collectorKeyUUID ?? null, now());
        if ((await ranges.count(caller.companyId)) >= MAX_RANGES) {
          throw new AppError('BAD_USER_INPUT', `A company has at most ${MAX_RANGES} discovery ranges: delete one first.`, { field: '' });
        }
        await refuseSameSweep(ranges, caller, { settings, keyId, uuid: null }, box, now());
        const uuid = randomUUID();
        await ranges.insert(caller.companyId, uuid, toValues(settings, keyId, box, uuid), now().toISOString());
        const after = infoOf(await getRow(ranges, caller, uuid), now());
        return { result: after, change: buildChange('collector_range.create', uuid, null, after) };
      });
    },

    /** Changes the given settings of a range; `snmp` replaces its credentials whole. */
    async update(caller: Caller, input: UpdateRangeInput): Promise<RangeInfo> {
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const ranges = createCollectorRangeRepository(tx);
        const row = await getRow(ranges, caller, requireUuid(input.rangeUUID, 'rangeUUID'));
        requireSomeChange(input, FIELDS);
        const before = infoOf(row, now());
        const stored = { range: row.cidr, port: row.port, snmp: openSnmp(row, box, credentialsContext(row.uuid)), ratePerSecond: row.ratePerSecond, intervalSeconds: row.intervalSeconds };
        const merged = Object.fromEntries(SETTINGS.map((name) => [name, isGiven(input, name) ? input[name] : stored[name]]));
        const settings = checkRange(merged);
        const keyId = isGiven(input, 'collectorKeyUUID') ? await collectorKeyOf(ranges, caller, input.collectorKeyUUID ?? null, now()) : row.apiKeyId;
        // a range left with its revoked or expired key is swept by no one, so it repeats no sweep
        const sweptByNoOne = !isGiven(input, 'collectorKeyUUID') && statusOf(row, now()) !== 'ACTIVE';
        if (!sweptByNoOne) await refuseSameSweep(ranges, caller, { settings, keyId, uuid: row.uuid }, box, now());
        await ranges.update(row.id, toValues(settings, keyId, box, row.uuid), now().toISOString());
        const after = infoOf(await getRow(ranges, caller, row.uuid), now());
        return { result: after, change: buildChange('collector_range.update', row.uuid, before, after) };
      });
    },

    /** Deletes a range: collectors stop sweeping it once they next fetch their ranges. */
    async delete(caller: Caller, input: { rangeUUID: string }): Promise<RangeInfo> {
      return writes.run(caller, async (tx) => {
        const ranges = createCollectorRangeRepository(tx);
        const row = await getRow(ranges, caller, requireUuid(input.rangeUUID, 'rangeUUID'));
        const before = infoOf(row, now());
        await ranges.delete(row.id);
        return { result: before, change: buildChange('collector_range.delete', row.uuid, before, null) };
      });
    },

    /** The caller's company's ranges, without credentials (the CLI's list). */
    async list(caller: Caller): Promise<RangeInfo[]> {
      const at = now();
      return (await createCollectorRangeRepository(store).list(caller.companyId)).map((row) => infoOf(row, at));
    },

    /**
     * How many ranges the key with this UUID holds alone: once it is revoked
     * or expires, no collector sweeps them (what `keys revoke` and the
     * dashboard's revoke warn of). 0 for an unknown key or another scope's.
     */
    async countHeldBy(keyUuid: string): Promise<number> {
      return createCollectorRangeRepository(store).countHeldBy(keyUuid);
    },

    /**
     * What a collector with an ingest key of the company sweeps: the ranges
     * of every collector and those of its own key, credentials opened. The
     * only path that opens them; FORBIDDEN for any other scope.
     */
    async forCollector(caller: Caller): Promise<CollectorRange[]> {
      if (caller.scope !== 'ingest' || caller.keyId === null) throw new AppError('FORBIDDEN', 'Discovery ranges are for collectors: use a key created with --scope ingest.');
      const box = await deps.box();
      const rows = await createCollectorRangeRepository(store).list(caller.companyId, caller.keyId);
      return rows.map((row) => ({
        rangeUUID: row.uuid,
        range: row.cidr,
        port: row.port,
        snmp: openSnmp(row, box, credentialsContext(row.uuid)) as unknown as SnmpCredentials,
        ratePerSecond: row.ratePerSecond,
        intervalSeconds: row.intervalSeconds,
      }));
    },
  };
}

export type CollectorRangeService = ReturnType<typeof createCollectorRangeService>;

async function getRow(ranges: CollectorRangeRepository, caller: Caller, uuid: string): Promise<RangeRow> {
  const row = await ranges.find(caller.companyId, uuid);
  if (row === undefined) throw notFound('rangeUUID');
  return row;
}

/** The row id of the collector key a range names: an active (neither revoked nor expired at `at`) ingest key of the caller's company; null for every collector. */
async function collectorKeyOf(ranges: CollectorRangeRepository, caller: Caller, uuid: string | null, at: Date): Promise<number | null> {
  if (uuid === null) return null;
  const key = await ranges.findKey(caller.companyId, requireUuid(uuid, 'collectorKeyUUID'));
  if (key === undefined) throw notFound('collectorKeyUUID');
  if (key.scope !== 'ingest') {
    throw new AppError('BAD_USER_INPUT', 'collectorKeyUUID must be a collector\'s key (scope ingest), or null for every collector of the company.', { field: 'collectorKeyUUID' });
  }
  if (key.revokedAt !== null) throw new AppError('BAD_USER_INPUT', 'collectorKeyUUID is a revoked key: name an active collector key, or null for every collector.', { field: 'collectorKeyUUID' });
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= at.getTime()) {
    throw new AppError('BAD_USER_INPUT', 'collectorKeyUUID is an expired key: name an active collector key, or null for every collector.', { field: 'collectorKeyUUID' });
  }
  return key.id;
}

/**
 * Refuses a range that another of the company's ranges already sweeps the
 * same way: one that overlaps it, on the same port, with the same
 * credentials, swept by a collector that also sweeps this one (both every
 * collector's, one of them, or the same key's) and swept at all (its key
 * valid). In a cycle they share such a range probes nothing the other does
 * not; ranges with other credentials over the same addresses (an address
 * that did not answer one set is tried with the other) or for other
 * collectors (two sites with the same private subnet) are allowed. Names
 * the other range so the caller can widen or change it instead.
 */
async function refuseSameSweep(
  ranges: CollectorRangeRepository,
  caller: Caller,
  range: { settings: RangeSettings; keyId: number | null; uuid: string | null },
  box: SecretBox,
  at: Date,
): Promise<void> {
  const { settings, keyId } = range;
  const same = canonicalCredentials(settings.snmp);
  for (const other of await ranges.list(caller.companyId)) {
    if (other.uuid === range.uuid || other.port !== settings.port || !rangesOverlap(other.cidr, settings.range)) continue;
    if (keyId !== null && other.apiKeyId !== null && other.apiKeyId !== keyId) continue;
    if (statusOf(other, at) !== 'ACTIVE') continue;
    if (canonicalCredentials(openSnmp(other, box, credentialsContext(other.uuid))) !== same) continue;
    throw new AppError(
      'BAD_USER_INPUT',
      `range: ${settings.range} overlaps the range ${other.cidr} (id ${other.uuid}), which the same collectors sweep on port ${other.port} with the same credentials: change that range instead, or give this one other credentials or another collector.`,
      { field: 'range' },
    );
  }
}

/** Equal for equal credentials, whatever the order of their fields and however an absent one is written. */
function canonicalCredentials(snmp: SnmpCredentials | Record<string, unknown>): string {
  const fields = Object.entries(snmp).filter(([, value]) => value !== undefined && value !== null);
  return JSON.stringify(fields.sort(([a], [b]) => a.localeCompare(b)));
}

/** Whether a collector sweeps the range at `at` (RangeStatus). */
function statusOf(row: RangeRow, at: Date): RangeStatus {
  if (row.apiKeyId === null) return 'ACTIVE';
  if (row.apiKeyRevokedAt !== null) return 'KEY_REVOKED';
  if (row.apiKeyExpiresAt !== null && Date.parse(row.apiKeyExpiresAt) <= at.getTime()) return 'KEY_EXPIRED';
  return 'ACTIVE';
}

/** Checks a range's settings by the collector's own rules (one set for a file's `discovery` and a stored range); BAD_USER_INPUT naming every problem. */
function checkRange(input: RangeSettingsInput): RangeSettings {
  const given = Object.fromEntries(SETTINGS.filter((name) => input[name] !== undefined && input[name] !== null).map((name) => [name, input[name]]));
  const { settings, problems } = readRangeSettings(given, '');
  if (problems.length === 0) return settings;
  throw refusal(problems);
}

function toValues(settings: RangeSettings, keyId: number | null, box: SecretBox, uuid: string): RangeValues {
  return {
    api_key_id: keyId,
    cidr: settings.range,
    port: settings.port,
    ...sealSnmp(settings.snmp, box, credentialsContext(uuid)),
    rate_per_second: settings.ratePerSecond,
    interval_seconds: settings.intervalSeconds,
  };
}

/** A stored range as the API and the audit log show it at `at`: no secret. */
function infoOf(row: RangeRow, at: Date): RangeInfo {
  invariant(row.apiKeyId === null || row.apiKeyUuid !== null, 'collector-range-key-missing');
  return {
    UUID: row.uuid,
    range: row.cidr,
    port: row.port,
    ...snmpInfoOf(row),
    ratePerSecond: row.ratePerSecond,
    intervalSeconds: row.intervalSeconds,
    collectorKeyUUID: row.apiKeyUuid,
    collectorKeyLabel: row.apiKeyLabel,
    status: statusOf(row, at),
  };
}

