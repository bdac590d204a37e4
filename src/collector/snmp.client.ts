import snmp from 'net-snmp';
import type { Session, Varbind } from 'net-snmp';
import type { SnmpCredentials, SnmpV3Credentials } from '../kernel/snmp-target.js';

/** Where and how to reach one agent. */
export interface SnmpTarget {
  readonly host: string;
  readonly port: number;
  readonly credentials: SnmpCredentials;
  /** Per request; each retry waits as long again. */
  readonly timeoutMs: number;
  readonly retries: number;
}

/** A value as the agent sent it: numbers for integers, counters, gauges and time ticks; bigint for Counter64; Buffer for octet strings. */
export type SnmpValue = number | bigint | string | Buffer | null;

/** One object of a walk: its OID (dotted, no leading dot) and value. */
export interface SnmpObject {
  readonly oid: string;
  readonly value: SnmpValue;
}

/** A session with one agent; every method rejects with an SnmpError. */
export interface SnmpClient {
  /** The values of scalar OIDs; null for an OID the agent does not have. */
  get(oids: readonly string[]): Promise<SnmpValue[]>;
  /** Every object under `oid`, in order, fetched with GETBULK. */
  walk(oid: string): Promise<SnmpObject[]>;
  close(): void;
}

/** Why a request to an agent failed, in words an operator can act on. */
export class SnmpError extends Error {
  constructor(
    readonly kind: 'timeout' | 'authentication' | 'agent',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Objects per GETBULK request. Each request and answer costs the collector a
 * fixed amount of CPU (encoding, a datagram each way, a timer), so fewer,
 * larger answers cost less: 50 instead of 25 cut the CPU of a 48-port
 * switch's poll by about a third (docs/benchmarks.md#collector). An agent
 * whose answer would not fit its message size sends fewer (RFC 3416, 4.2.3).
 */
const MAX_REPETITIONS = 50;

/** Opens a session (UDP) with the agent of `target`. */
export function openSnmpClient(target: SnmpTarget): SnmpClient {
  const options = { port: target.port, retries: target.retries, timeout: target.timeoutMs, backoff: 1 };
  const { credentials } = target;
  const session: Session =
    credentials.version === '2c'
      ? snmp.createSession(target.host, credentials.community, { ...options, version: snmp.Version2c })
      : snmp.createV3Session(target.host, v3User(credentials), { ...options, version: snmp.Version3 });
  // a late datagram's error after close must not become an unhandled 'error' event
  session.on('error', () => undefined);
  const where = `${target.host}:${target.port}`;
  return {
    get: (oids) =>
      new Promise((resolve, reject) => {
        session.get([...oids], (error, varbinds) => {
          if (error) reject(describe(error, where));
          else resolve((varbinds ?? []).map((v) => (snmp.isVarbindError(v) ? null : valueOf(v))));
        });
      }),
    walk: (oid) =>
      new Promise((resolve, reject) => {
        const objects: SnmpObject[] = [];
        session.subtree(
          oid,
          MAX_REPETITIONS,
          (varbinds: Varbind[]) => {
            for (const v of varbinds) if (!snmp.isVarbindError(v)) objects.push({ oid: v.oid, value: valueOf(v) });
          },
          (error: Error | null) => (error ? reject(describe(error, where)) : resolve(objects)),
        );
      }),
    close: () => session.close(),
  };
}

/** The net-snmp user of SNMPv3 credentials, for a session and for the trap receiver alike. */
export function v3User(credentials: SnmpV3Credentials) {
  const auth = { authProtocol: snmp.AuthProtocols[credentials.authProtocol], authKey: credentials.authKey };
  if (credentials.level === 'authNoPriv') return { name: credentials.user, level: snmp.SecurityLevel.authNoPriv, ...auth };
  return {
    name: credentials.user,
    level: snmp.SecurityLevel.authPriv,
    ...auth,
    privProtocol: snmp.PrivProtocols[credentials.privProtocol ?? 'aes'],
    privKey: credentials.privKey ?? '',
  };
}

function valueOf(varbind: Varbind): SnmpValue {
  const value: unknown = varbind.value;
  if (varbind.type === snmp.ObjectType.Counter64 && Buffer.isBuffer(value)) {
    return value.length === 0 ? 0n : BigInt(`0x${value.toString('hex')}`);
  }
  if (typeof value === 'number' || typeof value === 'string' || Buffer.isBuffer(value)) return value;
  return null;
}

function describe(error: Error, where: string): SnmpError {
  const name = error.name;
  if (name === 'RequestTimedOutError') return new SnmpError('timeout', `${where} did not answer (SNMP request timed out)`);
  if (/digest|password|user name|usm|decrypt|engine|authentication/i.test(error.message)) {
    return new SnmpError('authentication', `${where} refused the SNMPv3 credentials: ${error.message}`);
  }
  return new SnmpError('agent', `${where}: ${error.message}`);
}
