// The validation rules more than one feature checks, each with the words its
// messages use: API inputs, the import format, device reports and the
// dashboard's form inputs all take their bounds from here.

/** VLAN numbers (802.1Q): 1 to 4094; 0 and 4095 are reserved. */
export const VLAN_ID = { min: 1, max: 4094 } as const;

/** A colon-separated MAC address in either case, as a JSON Schema pattern (device reports, which lowercase it). */
export const MAC_ADDRESS_PATTERN = '^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$';

/**
 * An RFC 3339 date-time with a time zone, as a JSON Schema pattern (`T` and
 * `Z` in either case, at most nanoseconds). Date.parse still has the last
 * word: the pattern lets 2026-13-45 through.
 */
export const RFC3339_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';
