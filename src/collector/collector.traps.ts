import { isIP } from 'node:net';
import snmp from 'net-snmp';
import type { EventInput } from '../ingest/report.protocol.js';
import type { CollectedDevice, TrapsConfig } from './collector.config.js';
import { v3User } from './snmp.client.js';

/** A notification from a configured device, as the event its next report carries. */
export interface TrapEvent {
  readonly device: CollectedDevice;
  readonly event: EventInput;
}

/** Where the receiver says what it refused; never a community or key. */
export interface TrapLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface TrapReceiver {
  /** Takes notifications from these devices from now on (the targets fetched from netgraph change). */
  setDevices(devices: readonly CollectedDevice[]): void;
  close(): Promise<void>;
}

/** snmpTrapOID.0: the varbind of an SNMPv2 notification that names it. */
const SNMP_TRAP_OID = '1.3.6.1.6.3.1.1.4.1.0';
/** IF-MIB ifAdminStatus and ifOperStatus columns: the linkDown/linkUp varbinds, indexed by ifIndex. */
const IF_ADMIN_STATUS = '1.3.6.1.2.1.2.2.1.7.';
const IF_OPER_STATUS = '1.3.6.1.2.1.2.2.1.8.';
const IF_INDEX = '1.3.6.1.2.1.2.2.1.1.';
/** ifAdminStatus/ifOperStatus values (IF-MIB), as words. */
const IF_STATUS = ['', 'up', 'down', 'testing', 'unknown', 'dormant', 'notPresent', 'lowerLayerDown'];

/** The generic notifications of SNMPv2-MIB and IF-MIB, and the event type each becomes. */
const NOTIFICATIONS: Readonly<Record<string, { readonly trap: string; readonly type: string }>> = {
  '1.3.6.1.6.3.1.1.5.1': { trap: 'coldStart', type: 'DEVICE_BOOT' },
  '1.3.6.1.6.3.1.1.5.2': { trap: 'warmStart', type: 'DEVICE_BOOT' },
  '1.3.6.1.6.3.1.1.5.3': { trap: 'linkDown', type: 'LINK_DOWN' },
  '1.3.6.1.6.3.1.1.5.4': { trap: 'linkUp', type: 'LINK_UP' },
  '1.3.6.1.6.3.1.1.5.5': { trap: 'authenticationFailure', type: 'SNMP_AUTHENTICATION_FAILURE' },
};

interface Varbind {
  readonly oid: string;
  readonly value: unknown;
}

/**
 * The event a notification becomes: `DEVICE_BOOT` for coldStart and
 * warmStart, `LINK_DOWN`/`LINK_UP` with the port (its ifIndex, as the
 * collector numbers ports) and its statuses, `SNMP_AUTHENTICATION_FAILURE`,
 * and `SNMP_TRAP` with the notification's OID for any other. Null for a PDU
 * that names no notification.
 */
export function eventOfTrap(varbinds: readonly Varbind[], observedAt: Date): EventInput | null {
  const trapOid = varbinds.find((v) => v.oid === SNMP_TRAP_OID)?.value;
  if (typeof trapOid !== 'string') return null;
  const known = NOTIFICATIONS[trapOid];
  const details: Record<string, unknown> = { source: 'snmp-trap', trap: known?.trap ?? trapOid };
  if (known?.type === 'LINK_DOWN' || known?.type === 'LINK_UP') {
    for (const v of varbinds) {
      const [prefix, field] = v.oid.startsWith(IF_ADMIN_STATUS)
        ? [IF_ADMIN_STATUS, 'adminStatus']
        : v.oid.startsWith(IF_OPER_STATUS)
          ? [IF_OPER_STATUS, 'operStatus']
          : v.oid.startsWith(IF_INDEX)
            ? [IF_INDEX, null]
            : [null, null];
      if (prefix === null) continue;
      details.portNumber = Number(v.oid.slice(prefix.length));
      if (field !== null && typeof v.value === 'number') details[field] = IF_STATUS[v.value] ?? v.value;
    }
  }
  return { type: known?.type ?? 'SNMP_TRAP', observedAt: observedAt.toISOString(), details };
}

/** Whether an address is one of a device's (an IPv4 address may arrive IPv4-mapped). */
function sameAddress(host: string, address: string): boolean {
  return host === address || `::ffff:${host}` === address;
}

/**
 * Listens for SNMPv2c and SNMPv3 notifications from the configured devices.
 * A notification is taken when it comes from a device's `host` (an IP
 * address) with that device's community, or its SNMPv3 user and keys; any
 * other is logged and dropped. Each taken one is handed to `onTrap` as the
 * event its device's next report carries.
 */
export function startTrapReceiver(
  config: TrapsConfig,
  initial: readonly CollectedDevice[],
  onTrap: (trap: TrapEvent) => void,
  log: TrapLog,
  now: () => Date = () => new Date(),
): TrapReceiver {
  const receiver = snmp.createReceiver(
    { port: config.port, address: config.address, transport: config.address !== null && isIP(config.address) === 6 ? 'udp6' : 'udp4', includeAuthentication: true },
    (error: (Error & { rinfo?: { address: string } }) | null, notification: Notification | null) => {
      if (error !== null || notification === null) {
        // an unknown community or user, a wrong key, a malformed datagram: never its contents
        log.warn({ from: error?.rinfo?.address ?? null }, `SNMP notification refused: ${error?.message ?? 'empty'}`);
        return;
      }
      const from = notification.rinfo.address;
      const device = devices.find((d) => sameAddress(d.host, from) && credentialsMatch(d, notification.pdu));
      if (device === undefined) {
        log.warn({ from }, 'SNMP notification from an address that is no configured device with these credentials: dropped');
        return;
      }
      const event = eventOfTrap(notification.pdu.varbinds, now());
      if (event === null) {
        log.warn({ from, serialNumber: device.serialNumber }, 'SNMP notification without snmpTrapOID: dropped');
        return;
      }
      onTrap({ device, event });
    },
  );
  const authorizer = receiver.getAuthorizer();
  let devices: readonly CollectedDevice[] = [];
  const setDevices = (next: readonly CollectedDevice[]) => {
    for (const device of devices) {
      if (device.snmp.version === '2c') authorizer.deleteCommunity(device.snmp.community);
      else authorizer.deleteUser(device.snmp.user);
    }
    devices = next;
    for (const device of devices) {
      if (device.snmp.version === '2c') authorizer.addCommunity(device.snmp.community);
      else authorizer.addUser(v3User(device.snmp));
    }
  };
  setDevices(initial);
  return {
    setDevices,
    close: () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  };
}

interface Notification {
  readonly pdu: { readonly varbinds: Varbind[]; readonly community?: string; readonly user?: string };
  readonly rinfo: { readonly address: string };
}

function credentialsMatch(device: CollectedDevice, pdu: Notification['pdu']): boolean {
  return device.snmp.version === '2c' ? pdu.community === device.snmp.community : pdu.user === device.snmp.user;
}
