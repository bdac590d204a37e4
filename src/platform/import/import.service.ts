import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { CLI_ACTOR, buildChange } from '../audit/audit.service.js';
import type { Actor } from '../../kernel/caller.js';
import type { AuditService } from '../audit/audit.service.js';
import { addressOf } from '../../features/network/network.service.js';
import { unique } from '../write/write.rules.js';
import { createImportRepository } from './import.repository.js';
import type { ImportCounts, ImportRepository } from './import.repository.js';
import { validateImport } from './import.schema.js';
import type { ImportCompany, ImportDocument, ImportHardware, ImportSsid, ImportVlan } from './import.schema.js';
import type { ImportNetworkSecurity, ImportProblem } from './import.security.js';

/** Everything of one company as the repository reads it for export. */
type CompanyRows = Awaited<ReturnType<ImportRepository['readCompany']>>;

/** Bulk load and dump in the import format; `audit` records each imported company. */
export function createImportService(store: Store, audit: AuditService) {
  const repository = createImportRepository(store);

  return {
    /**
     * Imports a whole document in one transaction: every problem is reported
     * at its JSON path and nothing is written unless there are none. Each
     * company is recorded as `company.import` in its audit log, with what it
     * brought, in the same transaction. Then the loaded tables are analyzed
     * (docs/operations.md), so reads do not wait for someone to.
     */
    async import(input: unknown, actor: Actor = CLI_ACTOR): Promise<ImportCounts> {
      const { document, problems } = validateImport(input);
      if (!document) throw importRejected(problems);
      const conflicts = await findConflicts(document);
      if (conflicts.length > 0) throw importRejected(conflicts);
      const raced = () =>
        new AppError('CONFLICT', 'Import rejected: another write added one of its slugs, UUIDs or serial numbers meanwhile; nothing was written. Run it again.');
      const inserted = repository.insertDocument(document, (tx, companies) =>
        audit.recordIn(
          tx,
          actor,
          companies.map(({ id, uuid, company }) => ({
            companyId: id,
            change: buildChange('company.import', uuid, null, importedOf(company)),
          })),
        ),
      );
      const counts = await unique(store, inserted, raced);
      await repository.analyzeLoaded();
      return counts;
    },

    /** Everything of one company (or all), in the import format, lists in the API's order. */
    async export(companySlug?: string): Promise<ImportDocument> {
      const companies = await repository.listCompanies(companySlug);
      if (companySlug !== undefined && companies.length === 0) {
        throw new AppError('NOT_FOUND', `No company with slug "${companySlug}".`, { field: 'company' });
      }
      const out: ImportDocument = { companies: [] };
      for (const company of companies) {
        const rows = await repository.readCompany(company.id);
        const byNetwork = <T extends { network_id: number }>(items: T[]) => {
          const map = new Map<number, T[]>();
          for (const item of items) map.set(item.network_id, [...(map.get(item.network_id) ?? []), item]);
          return map;
        };
        const devices = byNetwork(rows.devices);
        const vlans = byNetwork(rows.vlans);
        const ssids = byNetwork(rows.ssids);
        const clients = byNetwork(rows.clients);
        const hardwareByDevice = new Map(rows.hardware.filter((h) => h.virtual_device_id !== null).map((h) => [h.virtual_device_id, h]));
        const hardware = (h: (typeof rows.hardware)[number]): ImportHardware => ({
          serialNumber: h.serial_number,
          deviceType: h.device_type,
          deviceModel: h.device_model,
          isConnectedToBackend: Boolean(h.is_connected_to_backend),
        });
        const networkUuids = new Map(rows.networks.map((n) => [n.id, n.uuid]));
        const spare = rows.hardware
          .filter((h) => h.virtual_device_id === null)
          .map((h) => {
            const placedAt = h.spare_network_id === null ? undefined : networkUuids.get(h.spare_network_id);
            return { ...hardware(h), ...(placedAt === undefined ? {} : { networkUUID: placedAt }) };
          });
        const security = exportSecurity(rows.security);
        out.companies.push({
          uuid: company.uuid,
          name: company.name,
          slug: company.slug,
          isCustomer: Boolean(company.is_customer),
          websiteDomain: company.website_domain,
          networks: rows.networks.map((n) => ({
            UUID: n.uuid,
            label: n.label,
            slug: n.slug,
            isActive: Boolean(n.is_active),
            mailingAddress: addressOf({
              mailingLine1: n.mailing_line1,
              mailingLine2: n.mailing_line2,
              mailingCity: n.mailing_city,
              mailingSubdivisionCode: n.mailing_subdivision_code,
              mailingPostalCode: n.mailing_postal_code,
            }),
            virtualDevices: (devices.get(n.id) ?? []).map((d) => {
              const h = hardwareByDevice.get(d.id);
              return {
                UUID: d.uuid,
                label: d.label,
                deviceType: d.device_type,
                deviceModel: d.device_model,
                isOnline: Boolean(d.is_online),
                hardwareDevice: h ? hardware(h) : null,
              };
            }),
            vlans: (vlans.get(n.id) ?? []).map(exportVlan),
            ssids: (ssids.get(n.id) ?? []).map(exportSsid),
            clients: (clients.get(n.id) ?? []).map((c) => ({
              macAddress: c.mac_address,
              ip: c.ip,
              lastSeen: c.last_seen,
              ...(c.is_connected ? {} : { isConnected: false }),
            })),
            ...security(n.id),
          })),
          ...(spare.length > 0 ? { spareHardwareDevices: spare } : {}),
          ...(rows.alertReceivers.length > 0 ? { alertReceivers: rows.alertReceivers } : {}),
        });
      }
      return out;
    },
  };

  /** Identifiers of the document that the store already has, as problems at their paths. */
  async function findConflicts(document: ImportDocument): Promise<ImportProblem[]> {
    const paths = { companySlugs: new Map<string, string>(), uuids: new Map<string, string>(), serials: new Map<string, string>() };
    document.companies.forEach((c, ci) => {
      const cp = `$.companies[${ci}]`;
      paths.companySlugs.set(c.slug, `${cp}.slug`);
      if (c.uuid) paths.uuids.set(c.uuid, `${cp}.uuid`);
      c.networks.forEach((n, ni) => {
        const np = `${cp}.networks[${ni}]`;
        paths.uuids.set(n.UUID, `${np}.UUID`);
        n.virtualDevices.forEach((d, di) => {
          paths.uuids.set(d.UUID, `${np}.virtualDevices[${di}].UUID`);
          if (d.hardwareDevice) paths.serials.set(d.hardwareDevice.serialNumber, `${np}.virtualDevices[${di}].hardwareDevice.serialNumber`);
        });
        n.vlans.forEach((l, li) => l.UUID && paths.uuids.set(l.UUID, `${np}.vlans[${li}].UUID`));
        n.ssids.forEach((s, si) => s.UUID && paths.uuids.set(s.UUID, `${np}.ssids[${si}].UUID`));
        for (const list of ['blockedClients', 'firewallRules', 'interVLANPairs'] as const) {
          n[list]?.forEach((item, i) => item.UUID && paths.uuids.set(item.UUID, `${np}.${list}[${i}].UUID`));
        }
        if (n.idsIPSConfig?.UUID) paths.uuids.set(n.idsIPSConfig.UUID, `${np}.idsIPSConfig.UUID`);
      });
      c.alertReceivers?.forEach((r, ri) => r.UUID && paths.uuids.set(r.UUID, `${cp}.alertReceivers[${ri}].UUID`));
      c.spareHardwareDevices?.forEach((h, hi) => paths.serials.set(h.serialNumber, `${cp}.spareHardwareDevices[${hi}].serialNumber`));
    });
    const existing = await repository.findExisting({
      companySlugs: [...paths.companySlugs.keys()],
      uuids: [...paths.uuids.keys()],
      serials: [...paths.serials.keys()],
    });
    const problems: ImportProblem[] = [];
    for (const slug of existing.companySlugs) problems.push({ path: paths.companySlugs.get(slug) as string, message: `a company with slug "${slug}" already exists` });
    for (const uuid of existing.uuids) problems.push({ path: paths.uuids.get(uuid) as string, message: `UUID "${uuid}" already exists` });
    for (const serial of existing.serials) problems.push({ path: paths.serials.get(serial) as string, message: `serial number "${serial}" is already registered` });
    return problems.sort((a, b) => a.path.localeCompare(b.path));
  }
}

export type ImportService = ReturnType<typeof createImportService>;

/** A VLAN row in the import format, with every field, so a round trip loses nothing. */
function exportVlan(l: CompanyRows['vlans'][number]): ImportVlan {
  return {
    UUID: l.uuid,
    name: l.name,
    vlanID: l.vlan_id,
    isEnabled: Boolean(l.is_enabled),
    isDefault: Boolean(l.is_default),
    description: l.description,
    ipV4ClientGateway: l.ipv4_client_gateway,
    ipV4ClientPrefixLength: l.ipv4_client_prefix_length,
    // written only through createVLAN's rules or the import's
    ipV4ClientAssignmentProtocol: l.ipv4_client_assignment_protocol as ImportVlan['ipV4ClientAssignmentProtocol'],
  };
}

/** An SSID row in the import format, with every field. */
function exportSsid(s: CompanyRows['ssids'][number]): ImportSsid {
  return {
    UUID: s.uuid,
    ssid: s.ssid,
    isEnabled: Boolean(s.is_enabled),
    isGuest: Boolean(s.is_guest),
    isHidden: Boolean(s.is_hidden),
    encryptionProtocol: s.encryption_protocol,
    vlanID: s.vlan_id,
  };
}

/**
 * A network's security configuration in the import format, by network id:
 * only the parts it has, so a network without any exports as before.
 */
function exportSecurity(rows: CompanyRows['security']): (networkId: number) => ImportNetworkSecurity {
  return (networkId) => {
    const mine = <T extends { network_id: number }>(items: readonly T[]) => items.filter((item) => item.network_id === networkId);
    const blocked = mine(rows.blockedClients).map((b) => ({ UUID: b.uuid, macAddress: b.mac_address, reason: b.reason, createdAt: b.created_at }));
    const rules = mine(rows.firewallRules).map((r) => ({
      UUID: r.uuid,
      name: r.name,
      description: r.description,
      action: r.action,
      isEnabled: Boolean(r.is_enabled),
      srcPrefix: r.src_prefix,
      dstPrefix: r.dst_prefix,
      priority: r.priority,
    }));
    const pairs = mine(rows.pairs)
      .map((p) => ({ UUID: p.uuid, leftVLANID: Math.min(p.lowVlanId, p.highVlanId), rightVLANID: Math.max(p.lowVlanId, p.highVlanId) }))
      .sort((a, b) => a.leftVLANID - b.leftVLANID || a.rightVLANID - b.rightVLANID);
    const [config] = mine(rows.idsIpsConfigs);
    return {
      ...(blocked.length > 0 ? { blockedClients: blocked } : {}),
      ...(rules.length > 0 ? { firewallRules: rules } : {}),
      ...(pairs.length > 0 ? { interVLANPairs: pairs } : {}),
      ...(config ? { idsIPSConfig: { UUID: config.uuid, mode: config.mode } } : {}),
    };
  };
}

/** What an imported company's audit entry says it brought: its name and slug, and how many of each object. */
function importedOf(company: ImportCompany): Record<string, unknown> {
  const networks = company.networks;
  return {
    slug: company.slug,
    name: company.name,
    networks: networks.length,
    virtualDevices: networks.reduce((n, network) => n + network.virtualDevices.length, 0),
    hardwareDevices:
      networks.reduce((n, network) => n + network.virtualDevices.filter((d) => d.hardwareDevice).length, 0) +
      (company.spareHardwareDevices?.length ?? 0),
    vlans: networks.reduce((n, network) => n + network.vlans.length, 0),
    ssids: networks.reduce((n, network) => n + network.ssids.length, 0),
    clients: networks.reduce((n, network) => n + network.clients.length, 0),
  };
}

function importRejected(problems: readonly ImportProblem[]): AppError {
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  return new AppError('BAD_USER_INPUT', `Import rejected, nothing was written:\n${lines}`, { problems });
}
