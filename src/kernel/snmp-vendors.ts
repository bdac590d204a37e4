/**
 * Vendor and model of an SNMP agent from its sysObjectID (SNMPv2-MIB): the
 * enterprise number under 1.3.6.1.4.1 names the vendor (IANA's Private
 * Enterprise Numbers), and a few well-known full OIDs name a model. One
 * table for the collector (what `collector discover` prints) and the server
 * (what it stores), documented in docs/collector.md#discovery.
 */

const ENTERPRISES = '1.3.6.1.4.1.';

/** Enterprise number -> vendor. An agent of another enterprise is shown by its number (`enterprise 12345`). */
export const SNMP_VENDORS: Readonly<Record<number, string>> = {
  9: 'Cisco',
  11: 'HP',
  43: '3Com',
  171: 'D-Link',
  1916: 'Extreme Networks',
  1991: 'Brocade',
  2011: 'Huawei',
  2636: 'Juniper',
  4526: 'Netgear',
  6486: 'Alcatel-Lucent',
  6527: 'Nokia',
  8072: 'Net-SNMP',
  11863: 'TP-Link',
  12356: 'Fortinet',
  14823: 'Aruba',
  14988: 'MikroTik',
  25461: 'Palo Alto Networks',
  29671: 'Cisco Meraki',
  30065: 'Arista',
  41112: 'Ubiquiti',
  47196: 'Aruba',
};

/** Full sysObjectIDs (below 1.3.6.1.4.1.) -> model, for the agents tests and common sites meet. */
export const SNMP_MODELS: Readonly<Record<string, string>> = {
  '8072.3.2.10': 'Linux',
  '8072.3.2.8': 'FreeBSD',
  '8072.3.2.16': 'macOS',
  '9.1.516': 'Catalyst 3750',
  '9.1.1208': 'Catalyst 2960-X',
  '9.1.2066': 'Catalyst 9300',
  '2636.1.1.1.2.31': 'EX4200',
  '14988.1': 'RouterOS',
  '41112.1.4': 'UniFi AP',
  '41112.1.5': 'UniFi Switch',
};

/** The vendor and model of a sysObjectID (dotted, with or without a leading dot); both null when it is not under 1.3.6.1.4.1. */
export function identifyAgent(sysObjectID: string | null): { vendor: string | null; model: string | null } {
  const oid = sysObjectID?.replace(/^\./, '') ?? '';
  if (!oid.startsWith(ENTERPRISES)) return { vendor: null, model: null };
  const below = oid.slice(ENTERPRISES.length);
  const enterprise = Number(below.split('.')[0]);
  if (!Number.isSafeInteger(enterprise)) return { vendor: null, model: null };
  return { vendor: SNMP_VENDORS[enterprise] ?? `enterprise ${enterprise}`, model: SNMP_MODELS[below] ?? null };
}
