// The validation rules more than one feature checks, each with the words its
// messages use: API inputs, the import format, device reports, the SNMP
// collector and the dashboard's form inputs all take their bounds from here.

/** VLAN numbers (802.1Q): 1 to 4094; 0 and 4095 are reserved. */
export const VLAN_ID = { min: 1, max: 4094 } as const;

/** True when `value` is a VLAN number. */
export function isVlanId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= VLAN_ID.min && value <= VLAN_ID.max;
}

/** How a VLAN number looks, for error messages: `vlanID must be ${VLAN_ID_RULE}.` */
export const VLAN_ID_RULE = `a whole number from ${VLAN_ID.min} to ${VLAN_ID.max}`;

const HEX_PAIR = '[0-9a-f]{2}';

/** A colon-separated MAC address, lowercase, as the API takes and answers it (a JSON Schema pattern). */
export const MAC_ADDRESS_PATTERN = `^${HEX_PAIR}(:${HEX_PAIR}){5}$`;
/** The same in either case, as devices may report it (ingest lowercases it). */
export const MAC_ADDRESS_ANY_CASE_PATTERN = MAC_ADDRESS_PATTERN.replaceAll('a-f', 'a-fA-F');

/**
 * An RFC 3339 date-time with a time zone, as a JSON Schema pattern (`T` and
 * `Z` in either case, at most nanoseconds). Date.parse has the last word:
 * the pattern lets 2026-13-45 through.
 */
export const RFC3339_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';

/** Hardware serial numbers: letters, digits, '-', '_' and '.', 1 to 64 characters. */
const SERIAL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** True when `value` is a valid hardware serial number. */
export function isSerialNumber(value: string): boolean {
  return SERIAL_PATTERN.test(value);
}

/** How a valid serial number looks, for error messages. */
export const SERIAL_RULE = 'letters, digits, ".", "_" and "-", 1 to 64 characters, e.g. "M1A3-7GKQ-2J4T"';

/**
 * The most characters of each text input, by what it names: the API's write
 * checks (1 to N characters, not blank), the import format and the
 * dashboard's `maxlength` attributes all take them from here.
 */
export const TEXT_MAX = {
  /** A VLAN's name. */
  vlanName: 100,
  /** A firewall rule's name. */
  firewallRuleName: 100,
  /** Free text: a VLAN's or firewall rule's description, why a client is blocked. */
  description: 500,
  /** A company's name. */
  companyName: 200,
  /** A network's display label. */
  networkLabel: 200,
  /** A virtual device's display label. */
  deviceLabel: 200,
  /** A device's model. */
  deviceModel: 100,
  /** An API key's label. */
  apiKeyLabel: 100,
  /** A webhook endpoint's label. */
  webhookLabel: 200,
  /** A webhook endpoint's Basic authorization user name. */
  webhookUsername: 200,
  /** An alert receiver's label. */
  alertReceiverLabel: 200,
  /** A mailing address's street lines (line1, line2). */
  addressLine: 200,
  /** A mailing address's city. */
  city: 200,
  /** A mailing address's region (subdivision) code. */
  subdivisionCode: 20,
  /** A mailing address's postal code. */
  postalCode: 20,
  /** The dashboard's free-text encryption field (the API takes only the SSIDEncryptionProtocol values). */
  encryption: 50,
} as const;

/** The most bytes (UTF-8) of an SSID, as 802.11 allows. */
export const SSID_MAX_BYTES = 32;

/** True when `value` is an SSID: a name of 1 to SSID_MAX_BYTES bytes. */
export function isSsidName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && Buffer.byteLength(value) <= SSID_MAX_BYTES;
}
