import { SERIAL_RULE, SSID_MAX_BYTES, TEXT_MAX, VLAN_ID_RULE, isSerialNumber, isSsidName, isVlanId } from '../../kernel/rules.js';
import { AppError } from '../../kernel/errors.js';
import { findPrototypeKey, joinPath } from '../../kernel/json-input.js';
import { SSID_ENCRYPTION_PROTOCOLS } from '../../features/ssid/ssid.service.js';
import { checkClientAddressing } from '../../features/vlan/vlan.service.js';
import type { VlanFields } from '../../features/vlan/vlan.service.js';
import { isIpAddress, isMacAddress, isUuid, toCanonicalDateTime } from '../../kernel/formats.js';
import { DOMAIN_RULE, SLUG_RULE, isSlug, isWebsiteDomain } from '../../features/company/company.rules.js';
import { validateAlertReceivers } from './import.alerts.js';
import type { ImportAlertReceiver } from './import.alerts.js';
import { validateNetworkSecurity } from './import.security.js';
import type { ImportNetworkSecurity, ImportProblem } from './import.security.js';

export const DEVICE_TYPES = ['ACCESS_POINT', 'CELLULAR_GATEWAY', 'CONTROLLER', 'POWER_DISTRIBUTION_UNIT', 'SWITCH'] as const;
export const VIRTUAL_DEVICE_TYPES = [...DEVICE_TYPES, 'OBSERVER'] as const;

/** The import format (also what export writes): companies with everything below them. */
export interface ImportDocument {
  companies: ImportCompany[];
}
export interface ImportCompany {
  /** Kept by export so a round trip loses nothing; generated when absent. */
  uuid?: string;
  name: string;
  slug: string;
  /** Defaults to true. */
  isCustomer?: boolean;
  /** Defaults to null. */
  websiteDomain?: string | null;
  networks: ImportNetwork[];
  /** Hardware in the company's inventory that no virtual device uses. */
  spareHardwareDevices?: ImportSpareHardware[];
  /** Alert receivers with EMAIL targets (import.alerts.ts); absent when there are none. */
  alertReceivers?: ImportAlertReceiver[];
}
/** Spare hardware: placed at one of the company's networks, or nowhere when networkUUID is absent. */
export interface ImportSpareHardware extends ImportHardware {
  networkUUID?: string;
}
export interface ImportNetwork extends ImportNetworkSecurity {
  UUID: string;
  label: string;
  slug: string;
  isActive: boolean;
  /** Absent parts are null; null, or every part null, is no address. */
  mailingAddress?: {
    line1?: string | null;
    line2?: string | null;
    city: string | null;
    subdivisionCode: string | null;
    postalCode?: string | null;
  } | null;
  virtualDevices: ImportVirtualDevice[];
  vlans: ImportVlan[];
  ssids: ImportSsid[];
  clients: ImportClient[];
}
export interface ImportVirtualDevice {
  UUID: string;
  label: string;
  deviceType: string;
  deviceModel: string;
  isOnline: boolean;
  hardwareDevice: ImportHardware | null;
}
export interface ImportHardware {
  serialNumber: string;
  deviceType: string;
  deviceModel: string;
  isConnectedToBackend: boolean;
}
export interface ImportVlan {
  UUID?: string;
  name: string;
  vlanID: number;
  isEnabled: boolean;
  /** Defaults to false. */
  isDefault?: boolean;
  /** Defaults to null. */
  description?: string | null;
  /** The clients' IPv4 gateway, with ipV4ClientPrefixLength (the rules of createVLAN); defaults to null. */
  ipV4ClientGateway?: string | null;
  /** 0 to 32, with ipV4ClientGateway; defaults to null. */
  ipV4ClientPrefixLength?: number | null;
  /** DHCP or STATIC; defaults to null. */
  ipV4ClientAssignmentProtocol?: 'DHCP' | 'STATIC' | null;
}
export interface ImportSsid {
  UUID?: string;
  ssid: string;
  isEnabled: boolean;
  /** Defaults to false. */
  isGuest?: boolean;
  /** Defaults to false. */
  isHidden?: boolean;
  /** Defaults to null. */
  encryptionProtocol?: string | null;
  /** The number of the network's VLAN its clients go on; defaults to null. */
  vlanID?: number | null;
}
export interface ImportClient {
  macAddress: string;
  ip: string | null;
  lastSeen: string;
  /** Defaults to true: imported clients count as connected. */
  isConnected?: boolean;
}

/** One problem of an import file, at a JSON path such as `$.companies[0].networks[2].vlans[1].vlanID`. */
const MAX_PROBLEMS = 50;

type Json = Record<string, unknown>;

/**
 * Checks an import document completely before anything is written, and
 * returns it normalised (timestamps canonical, optional lists present), or
 * the problems found, each at its JSON path. Duplicates inside the file are
 * problems too; duplicates against the store are checked when importing.
 */
export function validateImport(input: unknown): { document?: ImportDocument; problems: ImportProblem[] } {
  const prototypeKey = findPrototypeKey(input, '$');
  if (prototypeKey !== undefined) {
    return { problems: [{ path: joinPath(prototypeKey.path, prototypeKey.key), message: 'is a key that names an object\'s prototype, which is refused: rename it' }] };
  }
  const v = new Validator();
  const root = v.object(input, '$');
  if (!root) return { problems: v.problems };
  const companies = v.array(root.companies, '$.companies', true) ?? [];
  const seen = { companySlugs: new Set<string>(), uuids: new Set<string>(), serials: new Set<string>() };
  const document: ImportDocument = {
    companies: companies.map((company, i) => v.company(company, `$.companies[${i}]`, seen)),
  };
  return v.problems.length > 0 ? { problems: v.problems } : { document, problems: [] };
}

interface Seen {
  companySlugs: Set<string>;
  uuids: Set<string>;
  serials: Set<string>;
}

class Validator {
  readonly problems: ImportProblem[] = [];

  fail(path: string, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ path, message });
  }

  object(value: unknown, path: string): Json | undefined {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
    this.fail(path, 'must be an object');
    return undefined;
  }

  array(value: unknown, path: string, required = false): unknown[] | undefined {
    if (value === undefined && !required) return [];
    if (Array.isArray(value)) return value;
    this.fail(path, 'must be an array');
    return undefined;
  }

  string(value: unknown, path: string, max: number): string {
    if (typeof value === 'string' && value.trim().length > 0 && value.length <= max) return value;
    this.fail(path, `must be a non-empty string of at most ${max} characters`);
    return '';
  }

  optionalString(value: unknown, path: string, max: number): string | null {
    if (value === undefined || value === null) return null;
    return this.string(value, path, max);
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value === 'boolean') return value;
    this.fail(path, 'must be true or false');
    return false;
  }

  matching(value: unknown, path: string, check: (v: string) => boolean, rule: string): string {
    if (typeof value === 'string' && check(value)) return value;
    this.fail(path, `${JSON.stringify(value) ?? 'undefined'} is not valid: expected ${rule}`);
    return '';
  }

  oneOf(value: unknown, path: string, allowed: readonly string[]): string {
    if (typeof value === 'string' && allowed.includes(value)) return value;
    this.fail(path, `${JSON.stringify(value) ?? 'undefined'} is not one of ${allowed.join(', ')}`);
    return '';
  }

  unique(set: Set<string>, value: string, path: string, what: string): void {
    if (value === '') return;
    if (set.has(value)) this.fail(path, `duplicate ${what} "${value}" in the file`);
    set.add(value);
  }

  company(value: unknown, path: string, seen: Seen): ImportCompany {
    const c = this.object(value, path) ?? {};
    const slug = this.matching(c.slug, `${path}.slug`, isSlug, SLUG_RULE);
    this.unique(seen.companySlugs, slug, `${path}.slug`, 'company slug');
    const networkSlugs = new Set<string>();
    const networks = (this.array(c.networks, `${path}.networks`) ?? []).map((n, i) =>
      this.network(n, `${path}.networks[${i}]`, seen, networkSlugs),
    );
    const networkUuids = new Set(networks.map((n) => n.UUID));
    const spare = (this.array(c.spareHardwareDevices, `${path}.spareHardwareDevices`) ?? []).map((h, i) =>
      this.spareHardware(h, `${path}.spareHardwareDevices[${i}]`, seen, networkUuids),
    );
    const receivers = validateAlertReceivers(this, c.alertReceivers, `${path}.alertReceivers`, seen.uuids, networkUuids);
    const uuid = c.uuid === undefined ? undefined : this.matching(c.uuid, `${path}.uuid`, isUuid, 'a lowercase UUID');
    if (uuid) this.unique(seen.uuids, uuid, `${path}.uuid`, 'UUID');
    return {
      ...(uuid ? { uuid } : {}),
      name: this.string(c.name, `${path}.name`, TEXT_MAX.companyName),
      slug,
      isCustomer: c.isCustomer === undefined ? true : this.boolean(c.isCustomer, `${path}.isCustomer`),
      websiteDomain: c.websiteDomain === undefined || c.websiteDomain === null ? null : this.matching(c.websiteDomain, `${path}.websiteDomain`, isWebsiteDomain, DOMAIN_RULE),
      networks,
      ...(spare.length > 0 ? { spareHardwareDevices: spare } : {}),
      ...(receivers.length > 0 ? { alertReceivers: receivers } : {}),
    };
  }

  network(value: unknown, path: string, seen: Seen, slugs: Set<string>): ImportNetwork {
    const n = this.object(value, path) ?? {};
    const uuid = this.matching(n.UUID, `${path}.UUID`, isUuid, 'a lowercase UUID');
    this.unique(seen.uuids, uuid, `${path}.UUID`, 'UUID');
    const slug = this.matching(n.slug, `${path}.slug`, isSlug, SLUG_RULE);
    this.unique(slugs, slug, `${path}.slug`, 'network slug');
    let mailingAddress: ImportNetwork['mailingAddress'] = null;
    if (n.mailingAddress !== undefined && n.mailingAddress !== null) {
      const a = this.object(n.mailingAddress, `${path}.mailingAddress`) ?? {};
      mailingAddress = {
        line1: this.optionalString(a.line1, `${path}.mailingAddress.line1`, TEXT_MAX.addressLine),
        line2: this.optionalString(a.line2, `${path}.mailingAddress.line2`, TEXT_MAX.addressLine),
        city: this.optionalString(a.city, `${path}.mailingAddress.city`, TEXT_MAX.city),
        subdivisionCode: this.optionalString(a.subdivisionCode, `${path}.mailingAddress.subdivisionCode`, TEXT_MAX.subdivisionCode),
        postalCode: this.optionalString(a.postalCode, `${path}.mailingAddress.postalCode`, TEXT_MAX.postalCode),
      };
    }
    const vlanIds = new Set<string>();
    const ssidNames = new Set<string>();
    const macs = new Set<string>();
    const vlans = (this.array(n.vlans, `${path}.vlans`) ?? []).map((l, i) => this.vlan(l, `${path}.vlans[${i}]`, seen, vlanIds));
    return {
      UUID: uuid,
      label: this.string(n.label, `${path}.label`, TEXT_MAX.networkLabel),
      slug,
      isActive: this.boolean(n.isActive, `${path}.isActive`),
      mailingAddress,
      virtualDevices: (this.array(n.virtualDevices, `${path}.virtualDevices`) ?? []).map((d, i) =>
        this.virtualDevice(d, `${path}.virtualDevices[${i}]`, seen),
      ),
      vlans,
      ssids: (this.array(n.ssids, `${path}.ssids`) ?? []).map((s, i) => this.ssid(s, `${path}.ssids[${i}]`, seen, ssidNames)),
      clients: (this.array(n.clients, `${path}.clients`) ?? []).map((c, i) => this.client(c, `${path}.clients[${i}]`, macs)),
      ...validateNetworkSecurity(this, n, path, seen.uuids, vlanIds),
    };
  }

  /** Spare hardware, whose networkUUID (optional) must be one of the company's networks in the file. */
  spareHardware(value: unknown, path: string, seen: Seen, networkUuids: ReadonlySet<string>): ImportSpareHardware {
    const hardware = this.hardware(value, path, seen);
    const networkUUID = (this.object(value, path) ?? {}).networkUUID;
    if (networkUUID === undefined || networkUUID === null) return hardware;
    if (typeof networkUUID === 'string' && networkUuids.has(networkUUID)) return { ...hardware, networkUUID };
    this.fail(`${path}.networkUUID`, `${JSON.stringify(networkUUID)} is not valid: expected the UUID of one of the company's networks in the file, or null`);
    return hardware;
  }

  virtualDevice(value: unknown, path: string, seen: Seen): ImportVirtualDevice {
    const d = this.object(value, path) ?? {};
    const uuid = this.matching(d.UUID, `${path}.UUID`, isUuid, 'a lowercase UUID');
    this.unique(seen.uuids, uuid, `${path}.UUID`, 'UUID');
    const deviceType = this.oneOf(d.deviceType, `${path}.deviceType`, VIRTUAL_DEVICE_TYPES);
    let hardwareDevice: ImportHardware | null = null;
    if (d.hardwareDevice !== undefined && d.hardwareDevice !== null) {
      hardwareDevice = this.hardware(d.hardwareDevice, `${path}.hardwareDevice`, seen);
      if (deviceType !== '' && hardwareDevice.deviceType !== '' && hardwareDevice.deviceType !== deviceType) {
        this.fail(
          `${path}.hardwareDevice.deviceType`,
          `${hardwareDevice.deviceType} hardware cannot be assigned to a ${deviceType} virtual device`,
        );
      }
    }
    return {
      UUID: uuid,
      label: this.string(d.label, `${path}.label`, TEXT_MAX.deviceLabel),
      deviceType,
      deviceModel: this.string(d.deviceModel, `${path}.deviceModel`, TEXT_MAX.deviceModel),
      isOnline: this.boolean(d.isOnline, `${path}.isOnline`),
      hardwareDevice,
    };
  }

  hardware(value: unknown, path: string, seen: Seen): ImportHardware {
    const h = this.object(value, path) ?? {};
    const serialNumber = this.matching(h.serialNumber, `${path}.serialNumber`, isSerialNumber, SERIAL_RULE);
    this.unique(seen.serials, serialNumber, `${path}.serialNumber`, 'serial number');
    return {
      serialNumber,
      deviceType: this.oneOf(h.deviceType, `${path}.deviceType`, DEVICE_TYPES),
      deviceModel: this.string(h.deviceModel, `${path}.deviceModel`, TEXT_MAX.deviceModel),
      isConnectedToBackend: this.boolean(h.isConnectedToBackend, `${path}.isConnectedToBackend`),
    };
  }

  vlan(value: unknown, path: string, seen: Seen, ids: Set<string>): ImportVlan {
    const l = this.object(value, path) ?? {};
    const vlanID = l.vlanID;
    if (!isVlanId(vlanID)) {
      this.fail(`${path}.vlanID`, `${JSON.stringify(vlanID) ?? 'undefined'} is not valid: expected ${VLAN_ID_RULE}`);
    } else {
      this.unique(ids, String(vlanID), `${path}.vlanID`, 'vlanID');
    }
    const uuid = l.UUID === undefined ? undefined : this.matching(l.UUID, `${path}.UUID`, isUuid, 'a lowercase UUID');
    if (uuid) this.unique(seen.uuids, uuid, `${path}.UUID`, 'UUID');
    return {
      ...(uuid ? { UUID: uuid } : {}),
      name: this.string(l.name, `${path}.name`, TEXT_MAX.vlanName),
      vlanID: vlanID as number,
      isEnabled: this.boolean(l.isEnabled, `${path}.isEnabled`),
      isDefault: l.isDefault === undefined ? false : this.boolean(l.isDefault, `${path}.isDefault`),
      description: this.optionalString(l.description, `${path}.description`, TEXT_MAX.description),
      ...this.vlanAddressing(l, path),
    };
  }

  /** A VLAN's client addressing, by createVLAN's rules (a problem at the field they name). */
  vlanAddressing(l: Json, path: string): Pick<ImportVlan, 'ipV4ClientGateway' | 'ipV4ClientPrefixLength' | 'ipV4ClientAssignmentProtocol'> {
    try {
      return checkClientAddressing(l as Partial<VlanFields>, `${path}.`);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // the rule's message starts with the field, which the problem's path already names
      const field = typeof error.details.field === 'string' ? error.details.field : path;
      this.fail(field, error.message.startsWith(field) ? error.message.slice(field.length).trimStart() : error.message);
      return {};
    }
  }

  ssid(value: unknown, path: string, seen: Seen, names: Set<string>): ImportSsid {
    const s = this.object(value, path) ?? {};
    let ssid = '';
    if (!isSsidName(s.ssid)) {
      this.fail(`${path}.ssid`, `must be a name of 1 to ${SSID_MAX_BYTES} bytes`);
    } else {
      ssid = s.ssid;
      this.unique(names, ssid, `${path}.ssid`, 'ssid');
    }
    const uuid = s.UUID === undefined ? undefined : this.matching(s.UUID, `${path}.UUID`, isUuid, 'a lowercase UUID');
    if (uuid) this.unique(seen.uuids, uuid, `${path}.UUID`, 'UUID');
    return {
      ...(uuid ? { UUID: uuid } : {}),
      ssid,
      isEnabled: this.boolean(s.isEnabled, `${path}.isEnabled`),
      isGuest: s.isGuest === undefined ? false : this.boolean(s.isGuest, `${path}.isGuest`),
      isHidden: s.isHidden === undefined ? false : this.boolean(s.isHidden, `${path}.isHidden`),
      encryptionProtocol:
        s.encryptionProtocol === undefined || s.encryptionProtocol === null ? null : this.oneOf(s.encryptionProtocol, `${path}.encryptionProtocol`, SSID_ENCRYPTION_PROTOCOLS),
      vlanID: this.optionalVlanNumber(s.vlanID, `${path}.vlanID`),
    };
  }

  optionalVlanNumber(value: unknown, path: string): number | null {
    if (value === undefined || value === null) return null;
    if (isVlanId(value)) return value;
    this.fail(path, `${JSON.stringify(value)} is not valid: expected ${VLAN_ID_RULE}, or null`);
    return null;
  }

  client(value: unknown, path: string, macs: Set<string>): ImportClient {
    const c = this.object(value, path) ?? {};
    const macAddress = this.matching(c.macAddress, `${path}.macAddress`, isMacAddress, 'a lowercase colon-separated MAC address');
    this.unique(macs, macAddress, `${path}.macAddress`, 'macAddress');
    const ip =
      c.ip === undefined || c.ip === null ? null : this.matching(c.ip, `${path}.ip`, isIpAddress, 'an IPv4 or IPv6 address');
    const lastSeen = typeof c.lastSeen === 'string' ? toCanonicalDateTime(c.lastSeen) : undefined;
    if (lastSeen === undefined) {
      this.fail(`${path}.lastSeen`, `${JSON.stringify(c.lastSeen) ?? 'undefined'} is not an RFC 3339 timestamp such as "2026-11-21T17:03:00Z"`);
    }
    const isConnected = c.isConnected === undefined ? true : this.boolean(c.isConnected, `${path}.isConnected`);
    return { macAddress, ip, lastSeen: lastSeen ?? '', ...(isConnected ? {} : { isConnected: false }) };
  }
}
