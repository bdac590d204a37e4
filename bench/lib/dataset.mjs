// The benchmark data: the product's deterministic generator (src/tools/demo/dataset.ts,
// compiled to dist/), at a configurable scale, plus one big company.
import { generateDataset } from '../../dist/tools/demo/dataset.js';

/**
 * The default scale of the issue: 20 companies x 50 networks x 20 devices x
 * 100 clients, plus one company of 500 networks with the same per-network sizes.
 */
export const DEFAULT_SCALE = Object.freeze({
  companies: 20,
  networksPerCompany: 50,
  devicesPerNetwork: 20,
  clientsPerNetwork: 100,
  bigCompanyNetworks: 500,
  seed: 20261122,
});

/** Tiny data for --quick: checks the harness end to end, measures nothing worth keeping. */
export const QUICK_SCALE = Object.freeze({
  companies: 3,
  networksPerCompany: 4,
  devicesPerNetwork: 5,
  clientsPerNetwork: 10,
  bigCompanyNetworks: 12,
  seed: 20261122,
});

/** The slug of the big company (absent when bigCompanyNetworks is 0). */
export const BIG_COMPANY_SLUG = 'big-1';

/**
 * Generates the benchmark dataset in the import format. Same scale, same
 * bytes. Regular companies are `company-1` .. `company-N`; the big company is
 * `big-1`, generated from another seed, with its serial numbers starting with
 * `B` so they cannot collide with those of `company-1`.
 */
export function generateBenchDataset(scale) {
  const perNetwork = {
    devicesPerNetwork: scale.devicesPerNetwork,
    clientsPerNetwork: scale.clientsPerNetwork,
  };
  const regular = generateDataset({
    companies: scale.companies,
    networksPerCompany: scale.networksPerCompany,
    ...perNetwork,
    seed: scale.seed,
    slugPrefix: 'company',
  });
  if (scale.bigCompanyNetworks === 0) return regular;
  const [big] = generateDataset({
    companies: 1,
    networksPerCompany: scale.bigCompanyNetworks,
    ...perNetwork,
    // far from the regular seed: mulberry32 streams of nearby seeds overlap after a shift
    seed: (scale.seed * 7919 + 104729) >>> 0,
    slugPrefix: 'big',
  }).companies;
  big.name = 'Big Company';
  for (const network of big.networks) {
    for (const device of network.virtualDevices) {
      if (device.hardwareDevice) device.hardwareDevice.serialNumber = `B${device.hardwareDevice.serialNumber.slice(1)}`;
    }
  }
  return { companies: [...regular.companies, big] };
}

/** Counts of a dataset, for the report. */
export function countDataset(document) {
  const counts = { companies: 0, networks: 0, virtualDevices: 0, hardwareDevices: 0, clients: 0 };
  for (const company of document.companies) {
    counts.companies += 1;
    for (const network of company.networks) {
      counts.networks += 1;
      counts.virtualDevices += network.virtualDevices.length;
      counts.hardwareDevices += network.virtualDevices.filter((d) => d.hardwareDevice).length;
      counts.clients += network.clients.length;
    }
  }
  return counts;
}

/** Parses `companies x networks x devices x clients [+ big]` e.g. `20x50x20x100+500`. */
export function parseScale(text, base = DEFAULT_SCALE) {
  const match = /^(\d+)x(\d+)x(\d+)x(\d+)(?:\+(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`--scale must look like 20x50x20x100+500 (companies x networks x devices x clients + big company networks), not "${text}"`);
  const [, companies, networks, devices, clients, big] = match.map(Number);
  if (companies < 1 || networks < 1) throw new Error('--scale needs at least one company with one network');
  return Object.freeze({
    companies,
    networksPerCompany: networks,
    devicesPerNetwork: devices,
    clientsPerNetwork: clients,
    bigCompanyNetworks: Number.isNaN(big) ? 0 : big,
    seed: base.seed,
  });
}
