import { deviceLastSeenSql, onlineSql } from '../../kernel/online.js';
import { hardwareIdsOfNetwork, inCompany, networkIdOfHardware, text } from '../../engine/read.model.js';
import type { GraphQLFeature, SqlContext } from '../../engine/read.model.js';

/** True while the hardware that reported the radio aliased `r` is online (its last report younger than the offline window). */
const reporterOnline = (r: string, context: SqlContext): string =>
  onlineSql(deviceLastSeenSql(`${r}.hardware_device_id`, 'bh'), context.onlineSince());

/** BSSIDs: the radios of a network's access points, as their latest reports listed them. */
export const BSSID_FEATURE = {
  sdl: /* GraphQL */ `
"""A radio of an access point, broadcasting one SSID."""
type BSSID {
  BSSID: MacAddress!
  """True when the radio was reported active and its access point is online."""
  isActive: Boolean!
  """The band the radio broadcasts on, as reported."""
  radioBand: RadioBand!
  accessPointSerialNumber: String!
  """The network's SSID with the radio's reported name; null when the network has none."""
  SSID: SSID
}

"""A Wi-Fi frequency band."""
enum RadioBand {
  """2.4 GHz."""
  BAND_2_4G
  """5 GHz."""
  BAND_5G
  """6 GHz."""
  BAND_6G
}

extend type Query {
  """
  The radios of the network's access points from their latest reports, by
  BSSID: those reported active on online access points; with
  includeInactive, also radios reported inactive and the radios of offline
  access points (with isActive false).
  """
  bssidsForNetwork(
    "The network's UUID."
    networkUUID: UUID!
    "Also list inactive radios and those of offline access points."
    includeInactive: Boolean = false
  ): [BSSID!]
}
`,
  readModel: {
    BSSID: {
      BSSID: text('bssid'),
      isActive: { kind: 'computed', type: 'boolean', sql: (r, c) => `(${r}.is_active AND coalesce(${reporterOnline(r, c)}, FALSE))` },
      radioBand: text('radio_band'),
      accessPointSerialNumber: { kind: 'computed', type: 'string', sql: (r) => `(SELECT sh.serial_number FROM hardware_devices sh WHERE sh.id = ${r}.hardware_device_id)` },
      SSID: {
        kind: 'object',
        table: 'ssids',
        join: (s, r) => `${s}.ssid = ${r}.ssid AND ${s}.network_id = (SELECT ${networkIdOfHardware('rh')} FROM hardware_devices rh WHERE rh.id = ${r}.hardware_device_id)`,
      },
    },
  },
  roots: {
    bssidsForNetwork: {
      table: 'networks',
      arguments: [
        { name: 'networkUUID', type: 'uuid' },
        { name: 'includeInactive', type: 'boolean', default: false },
      ],
      where: inCompany('uuid', 'networkUUID'),
      list: {
        kind: 'list',
        table: 'device_radios',
        join: (r, n, c) =>
          `${r}.hardware_device_id IN ${hardwareIdsOfNetwork('r', n)} ` +
          `AND (${c.arg('includeInactive')} OR (${r}.is_active AND coalesce(${reporterOnline(r, c)}, FALSE)))`,
        orderBy: (r) => `${r}.bssid`,
      },
    },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
