import type {
  ImportClient,
  ImportCompany,
  ImportDocument,
  ImportNetwork,
  ImportVirtualDevice,
} from '../../platform/import/import.schema.js';
import { createRandom } from './random.js';

/** How big a generated dataset is. */
export interface DatasetScale {
  readonly companies: number;
  readonly networksPerCompany: number;
  readonly devicesPerNetwork: number;
  readonly clientsPerNetwork: number;
  /** Same seed, same bytes. */
  readonly seed: number;
  /** Slug prefix of generated companies: `<prefix>-<n>`. */
  readonly slugPrefix?: string;
}

const SITES = [
  { label: 'Headquarters', city: 'San Francisco', region: 'CA' },
  { label: 'Warehouse', city: 'Oakland', region: 'CA' },
  { label: 'Branch Office', city: 'Austin', region: 'TX' },
  { label: 'Lab', city: 'Seattle', region: 'WA' },
  { label: 'Retail Store', city: 'Denver', region: 'CO' },
  { label: 'Distribution Center', city: 'Reno', region: 'NV' },
  { label: 'Sales Office', city: 'Chicago', region: 'IL' },
  { label: 'Data Center', city: 'Ashburn', region: 'VA' },
  { label: 'Studio', city: 'Brooklyn', region: 'NY' },
  { label: 'Clinic', city: 'Portland', region: 'OR' },
];

const DEVICE_MIX = [
  { type: 'ACCESS_POINT', model: 'AP-W7', prefix: 'AP' },
  { type: 'ACCESS_POINT', model: 'AP-W6E', prefix: 'AP' },
  { type: 'SWITCH', model: 'SW-48P', prefix: 'Switch' },
  { type: 'ACCESS_POINT', model: 'AP-W7', prefix: 'AP' },
  { type: 'SWITCH', model: 'SW-24P', prefix: 'Switch' },
  { type: 'CONTROLLER', model: 'NC-200', prefix: 'Controller' },
  { type: 'POWER_DISTRIBUTION_UNIT', model: 'PDU-8', prefix: 'PDU' },
  { type: 'CELLULAR_GATEWAY', model: 'CG-5G', prefix: 'Cellular' },
  { type: 'ACCESS_POINT', model: 'AP-O6', prefix: 'Outdoor AP' },
  { type: 'OBSERVER', model: 'OBS-1', prefix: 'Observer' },
] as const;

const VLANS = [
  { name: 'Corp', vlanID: 10 },
  { name: 'Guest', vlanID: 20 },
  { name: 'Voice', vlanID: 30 },
  { name: 'IoT', vlanID: 40 },
  { name: 'Management', vlanID: 99 },
];

const SERIAL_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A serial unique per (seed, company, network, device), shaped like `M1A3-7GKQ-2J4T`. */
function serial(seed: number, company: number, network: number, device: number): string {
  const code = (n: number, width: number) => {
    let out = '';
    for (let i = 0; i < width; i++) {
      out = SERIAL_ALPHABET[n % SERIAL_ALPHABET.length] + out;
      n = Math.floor(n / SERIAL_ALPHABET.length);
    }
    return out;
  };
  return `M${code(seed, 2)}${code(company, 2)}-${code(network, 4)}-${code(device, 4)}`;
}

/**
 * Generates a dataset in the import format. Deterministic: the same scale
 * and seed give the same document, so benchmarks and tests are repeatable.
 */
export function generateDataset(scale: DatasetScale): ImportDocument {
  const random = createRandom(scale.seed);
  const companies: ImportCompany[] = [];
  const baseTime = Date.UTC(2026, 10, 21, 17, 0, 0);
  for (let c = 0; c < scale.companies; c++) {
    const slug = `${scale.slugPrefix ?? 'company'}-${c + 1}`;
    const networks: ImportNetwork[] = [];
    for (let n = 0; n < scale.networksPerCompany; n++) {
      const site = SITES[n % SITES.length] as (typeof SITES)[number];
      const round = Math.floor(n / SITES.length);
      const label = round === 0 ? site.label : `${site.label} ${round + 1}`;
      networks.push(generateNetwork(random, { c, n, label, site, baseTime, scale }));
    }
    companies.push({ name: `Company ${c + 1}`, slug, networks });
  }
  return { companies };
}

function generateNetwork(
  random: ReturnType<typeof createRandom>,
  at: { c: number; n: number; label: string; site: (typeof SITES)[number]; baseTime: number; scale: DatasetScale },
): ImportNetwork {
  const { c, n, label, site, baseTime, scale } = at;
  const virtualDevices: ImportVirtualDevice[] = [];
  const counters = new Map<string, number>();
  for (let d = 0; d < scale.devicesPerNetwork; d++) {
    const mix = DEVICE_MIX[d % DEVICE_MIX.length] as (typeof DEVICE_MIX)[number];
    const count = (counters.get(mix.prefix) ?? 0) + 1;
    counters.set(mix.prefix, count);
    const online = random.next() < 0.9;
    const hasHardware = mix.type !== 'OBSERVER' && random.next() < 0.95;
    // drawn in this order so a seed keeps giving the same dataset
    const UUID = random.uuid();
    const hardwareDevice = hasHardware
      ? { serialNumber: serial(scale.seed, c, n, d), deviceType: mix.type, deviceModel: mix.model, isConnectedToBackend: online && random.next() < 0.97 }
      : null;
    virtualDevices.push({
      UUID,
      label: `${mix.prefix} ${String(count).padStart(2, '0')}`,
      deviceType: mix.type,
      deviceModel: mix.model,
      // a device is online as its hardware is (docs/reports.md): the imported flags agree
      isOnline: hardwareDevice?.isConnectedToBackend ?? online,
      hardwareDevice,
    });
  }
  const clients: ImportClient[] = [];
  for (let k = 0; k < scale.clientsPerNetwork; k++) {
    const ipv6 = k % 10 === 9;
    clients.push({
      macAddress: `${random.hex(2)}:${random.hex(2)}:${random.hex(2)}:${((k >> 16) & 255).toString(16).padStart(2, '0')}:${((k >> 8) & 255).toString(16).padStart(2, '0')}:${(k & 255).toString(16).padStart(2, '0')}`,
      ip: k % 25 === 24 ? null : ipv6 ? `2001:db8:${n.toString(16)}::${(k + 1).toString(16)}` : `10.${n % 250}.${Math.floor(k / 250) % 250}.${(k % 250) + 2}`,
      lastSeen: new Date(baseTime - random.int(3_600_000) * 1000).toISOString(),
    });
  }
  const vlanCount = 2 + (n % 4);
  return {
    UUID: random.uuid(),
    label,
    slug: label.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    isActive: n % SITES.length !== 3,
    mailingAddress: { city: site.city, subdivisionCode: site.region },
    virtualDevices,
    vlans: VLANS.slice(0, vlanCount).map((v) => ({ UUID: random.uuid(), ...v, isEnabled: v.name !== 'IoT' })),
    ssids: [
      { UUID: random.uuid(), ssid: `C${c + 1}-Corp`, isEnabled: true },
      { UUID: random.uuid(), ssid: `C${c + 1}-Guest`, isEnabled: n % 2 === 0 },
    ],
    clients,
  };
}

/** The demo company loaded on a first start: Acme Networks, slug `acme`. */
export function generateDemoDataset(): ImportDocument {
  const document = generateDataset({
    companies: 1,
    networksPerCompany: 4,
    devicesPerNetwork: 8,
    clientsPerNetwork: 12,
    seed: 20261122,
    slugPrefix: 'acme',
  });
  const acme = document.companies[0] as ImportCompany;
  acme.name = 'Acme Networks';
  acme.slug = 'acme';
  for (const network of acme.networks) {
    for (const ssid of network.ssids) ssid.ssid = ssid.ssid.replace(/^C1-/, 'Acme-');
  }
  addDemoSecurity(acme);
  // alertReceiversForCompany answers on the demo; example.com receives no mail, and without SMTP_URL nothing is queued for it
  acme.alertReceivers = [
    { label: 'NOC on-call', targets: [{ type: 'EMAIL', emailAddress: 'noc@example.com' }], rules: [{ alert: 'DEVICE_OFFLINE' }, { alert: 'WAN_DOWN' }, { alert: 'WAN_UP' }] },
  ];
  return document;
}

/**
 * The headquarters' security configuration and a spare access point, so the
 * demo answers Meter's configuration roots (blockedClientsForNetwork,
 * firewallRulesForNetwork, interVLANCommunicationPermittedPairs, the IDS/IPS
 * mode, spareHardwareDevicesForNetwork) with something to show, as a real
 * network would have.
 */
function addDemoSecurity(acme: ImportCompany): void {
  const hq = acme.networks[0];
  if (hq === undefined) return;
  hq.blockedClients = [{ macAddress: '02:5e:00:00:0b:66', reason: 'Unknown device on the guest network' }];
  hq.firewallRules = [
    { name: 'Guests to corporate', description: 'The guest VLAN reaches the internet only', action: 'DENY', isEnabled: true, srcPrefix: '10.0.1.0/24', dstPrefix: '10.0.0.0/24', priority: 10 },
    { name: 'Corporate to the printers', description: null, action: 'PERMIT', isEnabled: true, srcPrefix: '10.0.0.0/24', dstPrefix: '10.0.3.0/24', priority: 20 },
  ];
  hq.interVLANPairs = [{ leftVLANID: 10, rightVLANID: 20 }];
  hq.idsIPSConfig = { mode: 'IDS' };
  acme.spareHardwareDevices = [
    { serialNumber: serial(20261122, 0, 0, 99), deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isConnectedToBackend: false, networkUUID: hq.UUID },
  ];
}
