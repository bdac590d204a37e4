import { slugArgument } from '../company/company.graphql.js';
import { dateTime, inCompany, isCompany, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ObjectReference } from '../../engine/read.model.js';
import type { DiscoveredDeviceService } from './discovered-device.service.js';

const discovered = (uuid: string): ObjectReference => ({ root: 'discoveredDeviceByUUID', arg: uuid });

/** Discovered devices: SNMP agents a company's collectors found, to adopt or ignore (docs/collector.md#discovery). */
export const DISCOVERED_DEVICE_FEATURE = {
  sdl: /* GraphQL */ `
"""Whether an admin has acted on a discovered device."""
enum DiscoveredDeviceState {
  """Found, not acted on yet."""
  NEW
  """Adopted into a network: it has a virtual device and a collector target."""
  ADOPTED
  """Ignored: listed, but not as new."""
  IGNORED
}

"""
An SNMP agent a company's collector found by sweeping an address range
(netgraph's own; docs/collector.md#discovery). One per company and address;
found again, it says what the agent says of itself now.
"""
type DiscoveredDevice {
  UUID: UUID!
  """The IPv4 or IPv6 address it answered at."""
  address: String!
  """The SNMP version of the credentials it answered: 2c or 3."""
  snmpVersion: String!
  sysName: String
  sysDescr: String
  """Dotted, e.g. 1.3.6.1.4.1.8072.3.2.10."""
  sysObjectID: String
  """From sysObjectID's enterprise number (docs/collector.md#discovery); "enterprise N" for one netgraph does not know."""
  vendor: String
  """From a few well-known sysObjectIDs; null for the rest."""
  model: String
  """ENTITY-MIB's chassis serial number, else its first MAC address (as the collector reports the device); null when it has neither."""
  serialNumber: String
  state: DiscoveredDeviceState!
  """The virtual device it was adopted as; null unless adopted (and once that device is deleted)."""
  virtualDeviceUUID: UUID
  """The collector that found it last: the label of its ingest key (as VirtualDevice.source's collectorName); null when found before netgraph recorded it."""
  collectorName: String
  firstSeenAt: DateTime!
  lastSeenAt: DateTime!
}

extend type Query {
  """netgraph's own (not in Meter's API): the SNMP agents the company's collectors found by sweeping address ranges (docs/collector.md#discovery), ordered by address (as text), then UUID; null with UNAUTHORIZED for another company's slug."""
  discoveredDevicesForCompany("The company's slug." companySlug: String!): [DiscoveredDevice!]
}

extend type Mutation {
  """
  Adopts a discovered device into a network in one transaction: registers its
  hardware (its serial number), creates a virtual device with it assigned and a
  collector target at its address, so the company's collectors poll it next.
  """
  adoptDiscoveredDevice("The device, where it goes and how to poll it." input: AdoptDiscoveredDeviceInput!): AdoptDiscoveredDevicePayload

  """Marks a discovered device ignored; an adopted one is a CONFLICT."""
  ignoreDiscoveredDevice("The device to ignore." input: DiscoveredDeviceInput!): IgnoreDiscoveredDevicePayload
}

"""What adoptDiscoveredDevice takes."""
input AdoptDiscoveredDeviceInput {
  discoveredDeviceUUID: UUID!
  """The network it joins."""
  networkUUID: UUID!
  """The virtual device's label; default its sysName, else its address."""
  label: String
  """Default SWITCH."""
  deviceType: String
  """The credentials its collector target polls with (stored encrypted, never shown)."""
  snmp: CollectorSNMPInput!
  "Default 161."
  port: Int
  "10 to 86400; default 60."
  intervalSeconds: Int
}

"""A discovered device, by UUID."""
input DiscoveredDeviceInput {
  discoveredDeviceUUID: UUID!
}

"""The result of adoptDiscoveredDevice."""
type AdoptDiscoveredDevicePayload {
  discoveredDevice: DiscoveredDevice!
  virtualDevice: VirtualDevice!
  target: CollectorTarget!
}

"""The result of ignoreDiscoveredDevice."""
type IgnoreDiscoveredDevicePayload {
  discoveredDevice: DiscoveredDevice!
}
`,
  readModel: {
    DiscoveredDevice: {
      UUID: text('uuid'),
      address: text('address'),
      snmpVersion: text('snmp_version'),
      sysName: text('sys_name', true),
      sysDescr: text('sys_descr', true),
      sysObjectID: text('sys_object_id', true),
      vendor: text('vendor', true),
      model: text('model', true),
      serialNumber: text('serial_number', true),
      state: text('state'),
      virtualDeviceUUID: { kind: 'computed', type: 'string', nullable: true, sql: (t) => `(SELECT ddv.uuid FROM virtual_devices ddv WHERE ddv.id = ${t}.virtual_device_id)` },
      collectorName: text('collector_name', true),
      firstSeenAt: dateTime('first_seen_at'),
      lastSeenAt: dateTime('last_seen_at'),
    },
  },
  roots: {
    discoveredDevicesForCompany: {
      table: 'companies',
      arguments: [slugArgument('companySlug')],
      where: isCompany('slug', 'companySlug'),
      list: { kind: 'list', table: 'discovered_devices', join: (t, co) => `${t}.company_id = ${co}.id`, orderBy: (t) => `${t}.address, ${t}.uuid` },
    },
  },
  internalRoots: {
    // the mutations read a device back through this
    discoveredDeviceByUUID: { table: 'discovered_devices', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
  },
  mutations: {
    adoptDiscoveredDevice: async (s, caller, input) => {
      const adopted = await s.discoveredDevices.adopt(caller, {
        discoveredDeviceUUID: input['discoveredDeviceUUID'] as string,
        networkUUID: input['networkUUID'] as string,
        label: (input['label'] as string | null | undefined) ?? null,
        deviceType: (input['deviceType'] as string | null | undefined) ?? null,
        snmp: input['snmp'] as Record<string, unknown>,
        port: (input['port'] as number | null | undefined) ?? null,
        intervalSeconds: (input['intervalSeconds'] as number | null | undefined) ?? null,
      });
      return {
        objects: {
          discoveredDevice: discovered(adopted.discoveredDevice.UUID),
          virtualDevice: { root: 'virtualDevice', arg: adopted.virtualDevice.UUID },
          target: { root: 'collectorTargetByUUID', arg: adopted.target.UUID },
        },
      };
    },
    ignoreDiscoveredDevice: async (s, caller, input) => ({
      objects: { discoveredDevice: discovered((await s.discoveredDevices.ignore(caller, { discoveredDeviceUUID: input['discoveredDeviceUUID'] as string })).UUID) },
    }),
  },
} satisfies GraphQLFeature<{ discoveredDevices: DiscoveredDeviceService }>;
