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
  /**
   * Every object under each of `oids` (a table's columns), in order, one
   * list per OID: the columns are walked side by side, each GETBULK asking
   * for the next objects of every column not yet at its end.
   */
  walkColumns(oids: readonly string[]): Promise<SnmpObject[][]>;
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
 * Objects per GETBULK request and column (max-repetitions). Each request and
 * answer costs the collector a fixed amount of CPU (encoding, a datagram each
 * way, a timer), so fewer, larger answers cost less: 50 instead of 25 cut the
 * CPU of a 48-port switch's poll by about a third (docs/benchmarks.md#collector).
 * An agent whose answer would not fit its message size sends fewer (RFC 3416,
 * 4.2.3); one that answers tooBig instead is asked for fewer.
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
    walkColumns: (oids) => walkColumns(session, oids, where),
    close: () => session.close(),
  };
}

/**
 * The multi-column walk of SnmpClient.walkColumns: each request carries the
 * last OID read of every open column; a column ends at its first object
 * outside its subtree, at an error varbind (endOfMibView), or when the agent
 * does not move it forward. An answer cut short (RFC 3416, 4.2.3) leaves the
 * columns it did not reach open; an answer that moves no column ends the walk.
 */
function walkColumns(session: Session, oids: readonly string[], where: string): Promise<SnmpObject[][]> {
  const objects = oids.map((): SnmpObject[] => []);
  const prefixes = oids.map((oid) => `${oid}.`);
  const from = [...oids];
  let open = oids.map((_, k) => k);
  let repetitions = MAX_REPETITIONS;
  // the objects of `column` in one answer, until its end; true while the column goes on
  const advance = (k: number, column: Varbind | Varbind[] | undefined): boolean => {
    if (!Array.isArray(column) || column.length === 0) return true;
    const prefix = prefixes[k] as string;
    const into = objects[k] as SnmpObject[];
    for (const v of column) {
      if (snmp.isVarbindError(v) || !v.oid.startsWith(prefix)) return false;
      into.push({ oid: v.oid, value: valueOf(v) });
    }
    const last = (column[column.length - 1] as Varbind).oid;
    if (!oidFollows(from[k] as string, last)) return false;
    from[k] = last;
    return true;
  };
  return new Promise((resolve, reject) => {
    const request = () => {
      if (open.length === 0) return resolve(objects);
      session.getBulk(
        open.map((k) => from[k] as string),
        0,
        repetitions,
        (error, varbinds) => {
          if (isTooBig(error) && repetitions > 1) {
            repetitions = Math.ceil(repetitions / 2);
            return request();
          }
          if (error) return reject(describe(error, where));
          if (varbinds === undefined || varbinds.length === 0) return resolve(objects);
          open = open.filter((k, j) => advance(k, varbinds[j]));
          request();
        },
      );
    };
    request();
  });
}

/** An agent's tooBig answer: the typings leave RequestFailedError out of getBulk's errors, net-snmp gives it. */
function isTooBig(error: Error | null): boolean {
  const failed: unknown = error;
  return failed instanceof snmp.RequestFailedError && failed.status === snmp.ErrorStatus.TooBig;
}

/** Whether the dotted OID `next` comes after `oid` in the agent's (lexicographic, arc by arc) order. */
function oidFollows(oid: string, next: string): boolean {
  const a = oid.split('.');
  const b = next.split('.');
  for (let i = 0; i < a.length && i < b.length; i++) {
    const d = Number(b[i]) - Number(a[i]);
    if (d !== 0) return d > 0;
  }
  return b.length > a.length;
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
