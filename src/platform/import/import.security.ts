import { TEXT_MAX } from '../../kernel/rules.js';
import { isMacAddress, isUuid, toCanonicalDateTime } from '../../kernel/formats.js';
import { toCanonicalPrefix } from '../../features/security/firewall-rule.prefix.js';

/** A problem of an import document: where (a JSON path) and what to fix. */
export interface ImportProblem {
  readonly path: string;
  readonly message: string;
}

/** A network's security configuration (docs/security.md); each part optional, absent when empty on export. */
export interface ImportNetworkSecurity {
  blockedClients?: { UUID?: string; macAddress: string; reason: string | null; createdAt?: string }[];
  firewallRules?: {
    UUID?: string;
    name: string;
    description: string | null;
    action: string;
    isEnabled: boolean;
    srcPrefix: string | null;
    dstPrefix: string | null;
    priority: number;
  }[];
  /** Unordered pairs of the network's VLANs by vlanID, the smaller left. */
  interVLANPairs?: { UUID?: string; leftVLANID: number; rightVLANID: number }[];
  idsIPSConfig?: { UUID?: string; mode: string };
}

/** What the security checks need of the import validator (import.schema.ts). */
export interface SecurityValidator {
  readonly problems: ImportProblem[];
  fail(path: string, message: string): void;
  object(value: unknown, path: string): Record<string, unknown> | undefined;
  array(value: unknown, path: string): unknown[] | undefined;
  string(value: unknown, path: string, max: number): string;
  optionalString(value: unknown, path: string, max: number): string | null;
  boolean(value: unknown, path: string): boolean;
  matching(value: unknown, path: string, check: (v: string) => boolean, rule: string): string;
  oneOf(value: unknown, path: string, allowed: readonly string[]): string;
  unique(set: Set<string>, value: string, path: string, what: string): void;
}

const FIREWALL_ACTIONS = ['PERMIT', 'DENY'];
const IDS_IPS_MODES = ['IDS', 'IPS'];
const MAX_PRIORITY = 1_000_000;

/**
 * A network's security configuration in the import format (docs/import-format.md):
 * `blockedClients`, `firewallRules`, `interVLANPairs` (by the numbers of the
 * network's VLANs in the file, `vlanIDs`) and `idsIPSConfig`, each optional.
 * Only the fields given are returned, so a document without them exports unchanged.
 */
export function validateNetworkSecurity(
  v: SecurityValidator,
  n: Record<string, unknown>,
  path: string,
  uuids: Set<string>,
  vlanIDs: ReadonlySet<string>,
): ImportNetworkSecurity {
  const optionalUuid = (value: unknown, at: string): { UUID?: string } => {
    if (value === undefined) return {};
    const uuid = v.matching(value, at, isUuid, 'a lowercase UUID');
    v.unique(uuids, uuid, at, 'UUID');
    return { UUID: uuid };
  };
  const out: ImportNetworkSecurity = {};
  if (n.blockedClients !== undefined) out.blockedClients = blockedClients(v, n.blockedClients, `${path}.blockedClients`, optionalUuid);
  if (n.firewallRules !== undefined) out.firewallRules = firewallRules(v, n.firewallRules, `${path}.firewallRules`, optionalUuid);
  if (n.interVLANPairs !== undefined) out.interVLANPairs = interVlanPairs(v, n.interVLANPairs, `${path}.interVLANPairs`, optionalUuid, vlanIDs);
  if (n.idsIPSConfig !== undefined && n.idsIPSConfig !== null) {
    const c = v.object(n.idsIPSConfig, `${path}.idsIPSConfig`) ?? {};
    out.idsIPSConfig = { ...optionalUuid(c.UUID, `${path}.idsIPSConfig.UUID`), mode: v.oneOf(c.mode, `${path}.idsIPSConfig.mode`, IDS_IPS_MODES) };
  }
  return out;
}

type OptionalUuid = (value: unknown, path: string) => { UUID?: string };

function blockedClients(v: SecurityValidator, value: unknown, path: string, optionalUuid: OptionalUuid) {
  const macs = new Set<string>();
  return (v.array(value, path) ?? []).map((item, i) => {
    const at = `${path}[${i}]`;
    const b = v.object(item, at) ?? {};
    const macAddress = v.matching(b.macAddress, `${at}.macAddress`, isMacAddress, 'a lowercase colon-separated MAC address');
    v.unique(macs, macAddress, `${at}.macAddress`, 'macAddress');
    let createdAt: string | undefined;
    if (b.createdAt !== undefined) {
      createdAt = typeof b.createdAt === 'string' ? toCanonicalDateTime(b.createdAt) : undefined;
      if (createdAt === undefined) v.fail(`${at}.createdAt`, `${JSON.stringify(b.createdAt)} is not an RFC 3339 timestamp such as "2026-11-21T17:03:00Z"`);
    }
    return { ...optionalUuid(b.UUID, `${at}.UUID`), macAddress, reason: v.optionalString(b.reason, `${at}.reason`, TEXT_MAX.description), ...(createdAt ? { createdAt } : {}) };
  });
}

function firewallRules(v: SecurityValidator, value: unknown, path: string, optionalUuid: OptionalUuid) {
  const priorities = new Set<string>();
  const prefix = (raw: unknown, at: string): string | null => {
    if (raw === undefined || raw === null) return null;
    const canonical = typeof raw === 'string' ? toCanonicalPrefix(raw) : undefined;
    if (canonical === undefined) v.fail(at, `${JSON.stringify(raw)} is not valid: expected an IPv4 or IPv6 network in CIDR form with no host bits set, or null`);
    return canonical ?? null;
  };
  return (v.array(value, path) ?? []).map((item, i) => {
    const at = `${path}[${i}]`;
    const r = v.object(item, at) ?? {};
    const priority = r.priority;
    if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1 || priority > MAX_PRIORITY) {
      v.fail(`${at}.priority`, `${JSON.stringify(priority) ?? 'undefined'} is not valid: expected a whole number from 1 to ${MAX_PRIORITY}`);
    } else {
      v.unique(priorities, String(priority), `${at}.priority`, 'priority');
    }
    return {
      ...optionalUuid(r.UUID, `${at}.UUID`),
      name: v.string(r.name, `${at}.name`, TEXT_MAX.firewallRuleName),
      description: v.optionalString(r.description, `${at}.description`, TEXT_MAX.description),
      action: v.oneOf(r.action, `${at}.action`, FIREWALL_ACTIONS),
      isEnabled: r.isEnabled === undefined ? true : v.boolean(r.isEnabled, `${at}.isEnabled`),
      srcPrefix: prefix(r.srcPrefix, `${at}.srcPrefix`),
      dstPrefix: prefix(r.dstPrefix, `${at}.dstPrefix`),
      priority: priority as number,
    };
  });
}

function interVlanPairs(v: SecurityValidator, value: unknown, path: string, optionalUuid: OptionalUuid, vlanIDs: ReadonlySet<string>) {
  const pairs = new Set<string>();
  return (v.array(value, path) ?? []).map((item, i) => {
    const at = `${path}[${i}]`;
    const p = v.object(item, at) ?? {};
    const side = (raw: unknown, field: string): number => {
      if (typeof raw === 'number' && vlanIDs.has(String(raw))) return raw;
      v.fail(`${at}.${field}`, `${JSON.stringify(raw) ?? 'undefined'} is not valid: expected the vlanID of one of the network's VLANs in the file`);
      return 0;
    };
    const left = side(p.leftVLANID, 'leftVLANID');
    const right = side(p.rightVLANID, 'rightVLANID');
    if (left !== 0 && left === right) v.fail(`${at}.rightVLANID`, 'must name another VLAN than leftVLANID');
    else if (left !== 0 && right !== 0) v.unique(pairs, `${Math.min(left, right)}-${Math.max(left, right)}`, at, 'VLAN pair');
    return { ...optionalUuid(p.UUID, `${at}.UUID`), leftVLANID: Math.min(left, right), rightVLANID: Math.max(left, right) };
  });
}
