// The benchmark cases: the six seed queries of the spec (and companyBySlug on
// the big company), written for each target, with an oracle computed from the
// dataset itself so every target's answers are checked against the data, not
// against each other.
import { BIG_COMPANY_SLUG } from './dataset.mjs';

/** Argument values per case, at most: enough that no single row stays hot. */
export const MAX_ARGUMENTS = 64;

const NETWORK_FULL = `
  UUID label isActive
  mailingAddress { city subdivisionCode }
  virtualDevices { label deviceType hardwareDevice { serialNumber isConnectedToBackend } }
  vlans { name vlanID isEnabled }
  ssids { ssid isEnabled }`;

const PG_NETWORK_FULL = `
  uuid label isActive mailingCity mailingSubdivisionCode
  virtualDevicesByNetworkId(orderBy: [LABEL_ASC, UUID_ASC]) { nodes { label deviceType hardwareDeviceByVirtualDeviceId { serialNumber isConnectedToBackend } } }
  vlansByNetworkId(orderBy: [NAME_ASC, VLAN_ID_ASC]) { nodes { name vlanId isEnabled } }
  ssidsByNetworkId(orderBy: SSID_ASC) { nodes { ssid isEnabled } }`;

const byKeys = (...keys) => (a, b) => {
  for (const key of keys) {
    if (a[key] < b[key]) return -1;
    if (a[key] > b[key]) return 1;
  }
  return 0;
};

/** Every `step`-th element, at most `max` of them, so arguments spread over the whole dataset. */
function spread(items, max = MAX_ARGUMENTS) {
  const step = Math.max(1, Math.floor(items.length / max));
  const out = [];
  for (let i = 0; i < items.length && out.length < max; i += step) out.push(items[i]);
  return out;
}

/**
 * Indexes a dataset for the cases: rows by the arguments the queries take,
 * with the company each belongs to (an API key is scoped to one company).
 */
export function indexDataset(document) {
  const index = { devices: [], serials: [], networks: [], companies: [], bigCompany: undefined };
  for (const company of document.companies) {
    const entry = { slug: company.slug, company };
    if (company.slug === BIG_COMPANY_SLUG) {
      index.bigCompany = entry;
      continue;
    }
    index.companies.push(entry);
    for (const network of company.networks) {
      index.networks.push({ company: company.slug, network });
      for (const device of network.virtualDevices) {
        index.devices.push({ company: company.slug, device });
        if (device.hardwareDevice) index.serials.push({ company: company.slug, hardware: device.hardwareDevice });
      }
    }
  }
  return index;
}

function sortedNetworks(company) {
  return [...company.networks].sort((a, b) => byKeys('label', 'UUID')(a, b));
}

function fullNetwork(network) {
  const address = network.mailingAddress;
  return {
    UUID: network.UUID,
    label: network.label,
    isActive: network.isActive,
    mailingAddress:
      !address || (address.city === null && address.subdivisionCode === null)
        ? null
        : { city: address.city, subdivisionCode: address.subdivisionCode },
    virtualDevices: [...network.virtualDevices].sort(byKeys('label', 'UUID')).map((d) => ({
      label: d.label,
      deviceType: d.deviceType,
      hardwareDevice: d.hardwareDevice
        ? { serialNumber: d.hardwareDevice.serialNumber, isConnectedToBackend: d.hardwareDevice.isConnectedToBackend }
        : null,
    })),
    vlans: [...network.vlans].sort(byKeys('name', 'vlanID')).map((l) => ({ name: l.name, vlanID: l.vlanID, isEnabled: l.isEnabled })),
    ssids: [...network.ssids].sort(byKeys('ssid')).map((s) => ({ ssid: s.ssid, isEnabled: s.isEnabled })),
  };
}

const iso = (value) => (value === null ? null : new Date(value).toISOString());

/** PostGraphile's network, in netgraph's shape. */
function fromPostgraphileNetwork(n) {
  return {
    UUID: n.uuid,
    label: n.label,
    isActive: n.isActive,
    mailingAddress:
      n.mailingCity === null && n.mailingSubdivisionCode === null ? null : { city: n.mailingCity, subdivisionCode: n.mailingSubdivisionCode },
    virtualDevices: n.virtualDevicesByNetworkId.nodes.map((d) => ({
      label: d.label,
      deviceType: d.deviceType,
      hardwareDevice: d.hardwareDeviceByVirtualDeviceId,
    })),
    vlans: n.vlansByNetworkId.nodes.map((l) => ({ name: l.name, vlanID: l.vlanId, isEnabled: l.isEnabled })),
    ssids: n.ssidsByNetworkId.nodes,
  };
}

/**
 * The cases. Each has: `args(index)`, the argument values with their company;
 * `expected(arg)`, the answer computed from the dataset, in netgraph's shape
 * (`{ <root>: value }`); and per target the request and a `normalize` from the
 * target's `data` to netgraph's shape. Timestamps compare as instants.
 */
export const CASES = [
  {
    id: 'virtualDevice',
    title: 'virtualDevice',
    // one row by its key: the request's own costs (log line included) weigh most here
    pointLookup: true,
    root: 'virtualDevice',
    args: (index) => spread(index.devices).map((d) => ({ company: d.company, value: d.device.UUID })),
    expected: (arg, index) => {
      const { device } = index.devices.find((d) => d.device.UUID === arg.value);
      return { virtualDevice: { UUID: device.UUID, label: device.label, isOnline: device.isOnline } };
    },
    netgraph: 'query VirtualDevice($arg: UUID!) { virtualDevice(UUID: $arg) { UUID label isOnline } }',
    postgraphile: 'query VirtualDevice($arg: UUID!) { virtualDeviceByUuid(uuid: $arg) { uuid label isOnline } }',
    fromPostgraphile: (data) => {
      const d = data.virtualDeviceByUuid;
      return { virtualDevice: d && { UUID: d.uuid, label: d.label, isOnline: d.isOnline } };
    },
  },
  {
    id: 'hardwareDevice',
    title: 'hardwareDevice',
    pointLookup: true,
    root: 'hardwareDevice',
    args: (index) => spread(index.serials).map((h) => ({ company: h.company, value: h.hardware.serialNumber })),
    expected: (arg, index) => {
      const { hardware } = index.serials.find((h) => h.hardware.serialNumber === arg.value);
      return { hardwareDevice: { ...hardware } };
    },
    netgraph:
      'query HardwareDevice($arg: String!) { hardwareDevice(serialNumber: $arg) { serialNumber deviceType deviceModel isConnectedToBackend } }',
    postgraphile:
      'query HardwareDevice($arg: String!) { hardwareDeviceBySerialNumber(serialNumber: $arg) { serialNumber deviceType deviceModel isConnectedToBackend } }',
    fromPostgraphile: (data) => ({ hardwareDevice: data.hardwareDeviceBySerialNumber }),
  },
  {
    id: 'networksForCompany',
    title: 'networksForCompany',
    root: 'networksForCompany',
    args: (index) => spread(index.companies).map((c) => ({ company: c.slug, value: c.slug })),
    expected: (arg, index) => {
      const { company } = index.companies.find((c) => c.slug === arg.value);
      return { networksForCompany: sortedNetworks(company).map((n) => ({ UUID: n.UUID, label: n.label, slug: n.slug })) };
    },
    netgraph: 'query Networks($arg: String!) { networksForCompany(companySlug: $arg) { UUID label slug } }',
    postgraphile:
      'query Networks($arg: String!) { companyBySlug(slug: $arg) { networksByCompanyId(orderBy: [LABEL_ASC, UUID_ASC]) { nodes { uuid label slug } } } }',
    fromPostgraphile: (data) => ({
      networksForCompany: data.companyBySlug?.networksByCompanyId.nodes.map((n) => ({ UUID: n.uuid, label: n.label, slug: n.slug })) ?? null,
    }),
  },
  {
    id: 'virtualDevicesForNetwork',
    title: 'virtualDevicesForNetwork',
    root: 'virtualDevicesForNetwork',
    args: (index) => spread(index.networks).map((n) => ({ company: n.company, value: n.network.UUID })),
    expected: (arg, index) => {
      const { network } = index.networks.find((n) => n.network.UUID === arg.value);
      return {
        virtualDevicesForNetwork: [...network.virtualDevices]
          .sort(byKeys('label', 'UUID'))
          .map((d) => ({ UUID: d.UUID, label: d.label, deviceType: d.deviceType, deviceModel: d.deviceModel, isOnline: d.isOnline })),
      };
    },
    netgraph:
      'query Devices($arg: UUID!) { virtualDevicesForNetwork(networkUUID: $arg) { UUID label deviceType deviceModel isOnline } }',
    postgraphile:
      'query Devices($arg: UUID!) { networkByUuid(uuid: $arg) { virtualDevicesByNetworkId(orderBy: [LABEL_ASC, UUID_ASC]) { nodes { uuid label deviceType deviceModel isOnline } } } }',
    fromPostgraphile: (data) => ({
      virtualDevicesForNetwork:
        data.networkByUuid?.virtualDevicesByNetworkId.nodes.map((d) => ({
          UUID: d.uuid,
          label: d.label,
          deviceType: d.deviceType,
          deviceModel: d.deviceModel,
          isOnline: d.isOnline,
        })) ?? null,
    }),
  },
  {
    id: 'networkClients',
    title: 'networkClients',
    root: 'networkClients',
    args: (index) => spread(index.networks).map((n) => ({ company: n.company, value: n.network.UUID })),
    expected: (arg, index) => {
      const { network } = index.networks.find((n) => n.network.UUID === arg.value);
      return {
        networkClients: network.clients
          .filter((c) => c.isConnected !== false)
          .sort(byKeys('macAddress'))
          .map((c) => ({ macAddress: c.macAddress, ip: c.ip, lastSeen: iso(c.lastSeen) })),
      };
    },
    netgraph: 'query Clients($arg: UUID!) { networkClients(networkUUID: $arg) { macAddress ip lastSeen } }',
    postgraphile:
      'query Clients($arg: UUID!) { networkByUuid(uuid: $arg) { networkClientsByNetworkId(condition: { isConnected: true }, orderBy: MAC_ADDRESS_ASC) { nodes { macAddress ip lastSeen } } } }',
    fromPostgraphile: (data) => ({ networkClients: data.networkByUuid?.networkClientsByNetworkId.nodes ?? null }),
  },
  {
    id: 'companyBySlug',
    title: 'companyBySlug (full nested selection)',
    root: 'companyBySlug',
    args: (index) => spread(index.companies).map((c) => ({ company: c.slug, value: c.slug })),
    expected: (arg, index) => expectedCompany([...index.companies, index.bigCompany].find((c) => c?.slug === arg.value).company),
    netgraph: `query Company($arg: String!) { companyBySlug(slug: $arg) { name networks { ${NETWORK_FULL} } } }`,
    postgraphile: `query Company($arg: String!) { companyBySlug(slug: $arg) { name networksByCompanyId(orderBy: [LABEL_ASC, UUID_ASC]) { nodes { ${PG_NETWORK_FULL} } } } }`,
    fromPostgraphile: (data) => {
      const c = data.companyBySlug;
      return { companyBySlug: c && { name: c.name, networks: c.networksByCompanyId.nodes.map(fromPostgraphileNetwork) } };
    },
  },
];

const companyBySlug = CASES.find((c) => c.id === 'companyBySlug');
CASES.push({
  ...companyBySlug,
  id: 'companyBySlugBig',
  title: 'companyBySlug, big company',
  args: (index) => (index.bigCompany ? [{ company: index.bigCompany.slug, value: index.bigCompany.slug }] : []),
});

function expectedCompany(company) {
  return { companyBySlug: { name: company.name, networks: sortedNetworks(company).map(fullNetwork) } };
}

/** A response's `data` in netgraph's shape, with timestamps as canonical instants, for comparing with `expected`. */
export function normalize(kase, target, data) {
  const shaped = target === 'postgraphile' ? kase.fromPostgraphile(data) : data;
  if (kase.root !== 'networkClients' || !Array.isArray(shaped?.networkClients)) return shaped;
  return { networkClients: shaped.networkClients.map((c) => ({ ...c, lastSeen: iso(c.lastSeen) })) };
}
