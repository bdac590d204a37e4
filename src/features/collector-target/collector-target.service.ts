import { randomUUID } from 'node:crypto';
import { AppError, invariant } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import type { SqlContext, Store } from '../../db/store.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { isGiven, notFound, requireSomeChange, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { readTargetSettings } from '../../kernel/snmp-target.js';
import type { SnmpColumns, SnmpCredentials, SnmpInfo, StoredSnmp, TargetSettings } from '../../kernel/snmp-target.js';
import { findCompanyDevice } from '../device/virtual-device.service.js';
import type { SecretBox } from '../webhook/webhook.cipher.js';
import { createCollectorTargetRepository } from './collector-target.repository.js';
import type { CollectorTargetRepository, TargetRow, TargetValues } from './collector-target.repository.js';

/** A target's settings as given: the collector configuration file's device fields (docs/collector.md), without `serialNumber`. */
export interface TargetSettingsInput {
  readonly host?: string;
  readonly port?: number | null;
  /** `{version: '2c', community}` or `{version: '3', user, level, authProtocol, authKey, privProtocol, privKey}`: the secrets are stored sealed, never shown. */
  readonly snmp?: Record<string, unknown>;
  readonly intervalSeconds?: number | null;
  readonly uplinks?: readonly string[] | null;
  /** `<uplink>=<host>:<port>`, e.g. `eth0=198.51.100.1:443`: one TCP target per uplink (docs/collector.md#uplink-probes). */
  readonly uplinkProbes?: readonly string[] | null;
}

/** A new target: the virtual device it reports as (with hardware assigned) and its settings. */
export interface CreateTargetInput extends TargetSettingsInput {
  readonly virtualDeviceUUID: string;
}

/** Changes to a target: absent fields stay; `snmp` replaces the credentials whole. */
export interface UpdateTargetInput extends TargetSettingsInput {
  readonly targetUUID: string;
}

/** A target as the API, the CLI and the audit log show it: never a community or key. */
export interface TargetInfo extends SnmpInfo {
  readonly UUID: string;
  readonly virtualDeviceUUID: string;
  readonly networkUUID: string;
  readonly host: string;
  readonly port: number;
  readonly intervalSeconds: number;
  readonly uplinks: readonly string[];
  /** `<uplink>=<host>:<port>`. */
  readonly uplinkProbes: readonly string[];
}

/** A target as a collector polls it: the configuration file's device, with its credentials opened. */
export interface CollectorDevice {
  readonly targetUUID: string;
  readonly serialNumber: string;
  readonly host: string;
  readonly port: number;
  readonly intervalSeconds: number;
  readonly uplinks: readonly string[];
  readonly uplinkProbes: readonly { uplink: string; target: string }[];
  readonly snmp: SnmpCredentials;
}

/** A company's most targets. */
export const MAX_TARGETS = 10_000;

const SETTINGS = ['host', 'port', 'snmp', 'intervalSeconds', 'uplinks', 'uplinkProbes'] as const;

/** The context a target's credentials are sealed with: a sealed value copied to another target does not open. */
export function credentialsContext(targetUuid: string): string {
  return `collector-target:${targetUuid}:snmp`;
}

/**
 * Collector targets (docs/collector.md): what a company's SNMP collectors
 * poll, one per virtual device. Writes are one audited transaction each
 * (`collector_target.create`, `.update`, `.delete`), whose snapshots hold no
 * secret; the SNMP community or keys are sealed with the webhook secrets'
 * box and opened only for the company's ingest keys (`forCollector`).
 * Another company's target answers like a missing one.
 */
export function createCollectorTargetService(deps: { store: Store; writes: WriteService; box: () => Promise<SecretBox>; now: () => Date }) {
  const { store, writes, now } = deps;

  async function getRow(targets: CollectorTargetRepository, caller: Caller, targetUUID: unknown): Promise<TargetRow> {
    const row = await targets.find(caller.companyId, requireUuid(targetUUID, 'targetUUID'));
    if (row === undefined) throw notFound('targetUUID');
    return row;
  }

  return {
    /** Adds a target for a virtual device of the caller's company that has hardware assigned (its reports go to that serial number). */
    async create(caller: Caller, input: CreateTargetInput): Promise<TargetInfo> {
      const settings = checkSettings(input);
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const targets = createCollectorTargetRepository(tx);
        const device = await findCompanyDevice(tx, caller.companyId, requireUuid(input.virtualDeviceUUID, 'virtualDeviceUUID'));
        if (device === undefined) throw notFound('virtualDeviceUUID');
        if (device.hardwareSerialNumber === null) {
          throw new AppError('BAD_USER_INPUT', 'virtualDeviceUUID has no hardware assigned: assign the hardware the device reports as first (assignHardwareDevice).', { field: 'virtualDeviceUUID' });
        }
        if ((await targets.findByVirtualDevice(device.id)) !== undefined) {
          throw new AppError('CONFLICT', 'virtualDeviceUUID has a collector target already: update or delete that one.', { field: 'virtualDeviceUUID' });
        }
        if ((await targets.count(caller.companyId)) >= MAX_TARGETS) {
          throw new AppError('BAD_USER_INPUT', `A company has at most ${MAX_TARGETS} collector targets: delete one first.`, { field: '' });
        }
        const after = await insertTarget(tx, caller.companyId, device.id, settings, box, now().toISOString());
        return { result: after, change: buildChange('collector_target.create', after.UUID, null, after) };
      });
    },

    /** Changes the given settings of a target; `snmp` replaces its credentials whole. */
    async update(caller: Caller, input: UpdateTargetInput): Promise<TargetInfo> {
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const targets = createCollectorTargetRepository(tx);
        const row = await getRow(targets, caller, input.targetUUID);
        requireSomeChange(input, SETTINGS);
        const before = infoOf(row);
        const stored = settingsOf(row, box);
        const merged = Object.fromEntries(SETTINGS.map((name) => [name, isGiven(input, name) ? input[name] : stored[name]]));
        await targets.update(row.id, toValues(checkSettings(merged), box, row.uuid), now().toISOString());
        const after = infoOf(await rowOf(targets, caller, row.uuid));
        return { result: after, change: buildChange('collector_target.update', row.uuid, before, after) };
      });
    },

    /** Deletes a target: collectors stop polling it once they next fetch their targets. */
    async delete(caller: Caller, input: { targetUUID: string }): Promise<TargetInfo> {
      return writes.run(caller, async (tx) => {
        const targets = createCollectorTargetRepository(tx);
        const row = await getRow(targets, caller, input.targetUUID);
        const before = infoOf(row);
        await targets.delete(row.id);
        return { result: before, change: buildChange('collector_target.delete', row.uuid, before, null) };
      });
    },

    /** The caller's company's targets, without credentials (the CLI's list). */
    async list(caller: Caller): Promise<TargetInfo[]> {
      return (await createCollectorTargetRepository(store).list(caller.companyId)).map(infoOf);
    },

    /**
     * What a collector with an ingest key of the company polls: each target
     * whose virtual device has hardware assigned, credentials opened. The
     * only path that opens them; FORBIDDEN for any other scope.
     */
    async forCollector(caller: Caller): Promise<CollectorDevice[]> {
      if (caller.scope !== 'ingest') throw new AppError('FORBIDDEN', 'Collector targets are for collectors: use a key created with --scope ingest.');
      const box = await deps.box();
      const rows = await createCollectorTargetRepository(store).list(caller.companyId);
      return rows.flatMap((row) => {
        if (row.serialNumber === null) return [];
        const { snmp, uplinkProbes, ...settings } = settingsOf(row, box);
        const probes = uplinkProbes.map((p) => probeObject(p) as { uplink: string; target: string });
        return [{ targetUUID: row.uuid, serialNumber: row.serialNumber, ...settings, uplinkProbes: probes, snmp: snmp as unknown as SnmpCredentials }];
      });
    },
  };
}

export type CollectorTargetService = ReturnType<typeof createCollectorTargetService>;

/**
 * Adds a target for a virtual device of the company, its settings checked
 * (checkSettings) and its credentials sealed for it, inside a write (`tx`)
 * whose audit entry records it: `create`'s, or another feature's (adopting
 * a discovered device). Returns it as the API shows it.
 */
export async function insertTarget(tx: SqlContext, companyId: number, virtualDeviceId: number, settings: TargetSettings, box: SecretBox, at: string): Promise<TargetInfo> {
  const targets = createCollectorTargetRepository(tx);
  const uuid = randomUUID();
  await targets.insert(companyId, uuid, virtualDeviceId, toValues(settings, box, uuid), at);
  const row = await targets.find(companyId, uuid);
  invariant(row !== undefined, 'collector-target-insert-missing');
  return infoOf(row);
}

async function rowOf(targets: CollectorTargetRepository, caller: Caller, uuid: string): Promise<TargetRow> {
  const row = await targets.find(caller.companyId, uuid);
  if (row === undefined) throw notFound('targetUUID');
  return row;
}

/** Checks settings by the collector's own rules (one set of rules for a file's device and a target); BAD_USER_INPUT naming every problem. */
export function checkSettings(input: TargetSettingsInput): TargetSettings {
  const given: Record<string, unknown> = Object.fromEntries(SETTINGS.filter((name) => input[name] !== undefined && input[name] !== null).map((name) => [name, input[name]]));
  if (Array.isArray(given.uplinkProbes)) given.uplinkProbes = (given.uplinkProbes as unknown[]).map(probeObject);
  const { settings, problems } = readTargetSettings(given, '');
  if (problems.length === 0) return settings;
  throw refusal(problems);
}

/** The problems of the collector's rules, read at '' (`.snmp.authKey: must be ...`), as one BAD_USER_INPUT naming the input's fields, the first as its field. */
export function refusal(problems: readonly string[]): AppError {
  const named = problems.map((p) => p.replace(/^\./, ''));
  const field = (named[0] as string).slice(0, (named[0] as string).indexOf(':'));
  return new AppError('BAD_USER_INPUT', `${named.join('; ')}.`, { field });
}

/** The columns of checked settings, the secrets sealed for this target. */
export function toValues(settings: TargetSettings, box: SecretBox, uuid: string): TargetValues {
  return {
    host: settings.host,
    port: settings.port,
    ...sealSnmp(settings.snmp, box, credentialsContext(uuid)),
    interval_seconds: settings.intervalSeconds,
    uplinks: JSON.stringify(settings.uplinks),
    uplink_probes: JSON.stringify(settings.uplinkProbes.map((p) => `${p.uplink}=${probeText(p.target)}`)),
  };
}

/**
 * Checked SNMP credentials as columns, the community or keys sealed with the
 * webhook secrets' box for `context` (one object's own: a sealed value copied
 * to another object does not open). Targets and discovery ranges both.
 */
export function sealSnmp(snmp: SnmpCredentials, box: SecretBox, context: string): SnmpColumns {
  const secrets = snmp.version === '2c' ? { community: snmp.community } : { authKey: snmp.authKey, ...(snmp.privKey === undefined ? {} : { privKey: snmp.privKey }) };
  const v3 = snmp.version === '3' ? snmp : undefined;
  return {
    snmp_version: snmp.version,
    snmp_user: v3?.user ?? null,
    snmp_level: v3?.level ?? null,
    auth_protocol: v3?.authProtocol ?? null,
    priv_protocol: v3?.privProtocol ?? null,
    credentials: box.seal(JSON.stringify(secrets), context),
  };
}

/** Stored SNMP credentials as the API shows them: no secret. */
export function snmpInfoOf(row: StoredSnmp): SnmpInfo {
  return { snmpVersion: row.snmpVersion, snmpUser: row.snmpUser, snmpLevel: row.snmpLevel, authProtocol: row.authProtocol, privProtocol: row.privProtocol };
}

/** Stored SNMP credentials as given (sealSnmp's input), the secrets opened with the `context` they were sealed for. */
export function openSnmp(row: StoredSnmp, box: SecretBox, context: string): Record<string, unknown> {
  const secrets = JSON.parse(box.open(row.credentials, context)) as Record<string, string>;
  if (row.snmpVersion === '2c') return { version: '2c', community: secrets.community };
  return {
    version: '3',
    user: row.snmpUser,
    level: row.snmpLevel,
    authProtocol: row.authProtocol,
    authKey: secrets.authKey,
    ...(row.privProtocol === null ? {} : { privProtocol: row.privProtocol, privKey: secrets.privKey }),
  };
}

/** A stored target's settings as given, credentials opened. */
function settingsOf(row: TargetRow, box: SecretBox) {
  return {
    host: row.host,
    port: row.port,
    snmp: openSnmp(row, box, credentialsContext(row.uuid)),
    intervalSeconds: row.intervalSeconds,
    uplinks: JSON.parse(row.uplinks) as string[],
    uplinkProbes: JSON.parse(row.uplinkProbes) as string[],
  };
}

/** A stored target as the API and the audit log show it: no secret. */
export function infoOf(row: TargetRow): TargetInfo {
  return {
    UUID: row.uuid,
    virtualDeviceUUID: row.virtualDeviceUuid,
    networkUUID: row.networkUuid,
    host: row.host,
    port: row.port,
    ...snmpInfoOf(row),
    intervalSeconds: row.intervalSeconds,
    uplinks: JSON.parse(row.uplinks) as string[],
    uplinkProbes: JSON.parse(row.uplinkProbes) as string[],
  };
}

/** `eth0=198.51.100.1:443` as the configuration file's `{"uplink": "eth0", "target": "198.51.100.1:443"}`; anything else as given, for the rules to refuse. */
function probeObject(entry: unknown): unknown {
  if (typeof entry !== 'string' || !entry.includes('=')) return entry;
  const at = entry.indexOf('=');
  return { uplink: entry.slice(0, at), target: entry.slice(at + 1) };
}

function probeText(target: { host: string; port: number }): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
