import dns from 'node:dns/promises';
import net from 'node:net';
import { AppError } from '../../kernel/errors.js';

/** The longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

/**
 * Where deliveries may not go unless WEBHOOK_ALLOW_PRIVATE_TARGETS is on:
 * loopback, private, shared, link-local (with the cloud metadata address
 * 169.254.169.254 and fd00:ec2::254), multicast, reserved and unspecified
 * ranges, so a webhook cannot be pointed at netgraph's own network.
 */
const BLOCKED = (() => {
  const list = new net.BlockList();
  const v4 = [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const;
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  const v6 = [
    ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7],
    ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
  ] as const;
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return list;
})();

/** True when deliveries to this IP address are refused (IPv4-mapped IPv6 addresses are judged as IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return BLOCKED.check(mapped, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * An endpoint URL as stored: http or https, a host, no user name or
 * password (an Authorization is configured on its own), at most
 * MAX_URL_LENGTH characters; an IP literal host must be allowed. BAD_USER_INPUT
 * naming `url` otherwise.
 */
export function checkEndpointUrl(value: unknown, allowPrivate: boolean): string {
  const refuse = (why: string) => new AppError('BAD_USER_INPUT', `url ${why}`, { field: 'url' });
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_LENGTH) throw refuse(`must be an http(s) URL of at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse(`"${value}" is not a URL: give one such as https://hooks.example.com/netgraph.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must start with https:// (or http://).');
  if (url.username !== '' || url.password !== '') throw refuse('must not hold a user name or password: set a Basic authorization instead.');
  const host = hostOf(url);
  if (!allowPrivate && net.isIP(host) !== 0 && isBlockedAddress(host)) {
    throw refuse(`points at ${host}, a loopback, private, link-local or reserved address: netgraph does not deliver there.`);
  }
  return url.toString();
}

/** The URL's host without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Where one attempt connects: the URL and the address checked for it. */
export interface ResolvedTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

/** Why an attempt did not connect: the target resolved to a refused address, or did not resolve. */
export class TargetRefused extends Error {}

/**
 * Resolves the endpoint's host now (on every attempt, so a DNS answer that
 * changes cannot slip past an earlier check) and returns the address to
 * connect to. When any address of the answer is refused the attempt is
 * refused: connecting only to the checked address, never resolving again, is
 * what keeps DNS rebinding out.
 */
export async function resolveTarget(value: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const url = new URL(value);
  const host = hostOf(url);
  let answers: { address: string; family: number }[];
  if (net.isIP(host) !== 0) answers = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      answers = await dns.lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new TargetRefused(`${host} did not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const first = answers[0];
  if (first === undefined) throw new TargetRefused(`${host} has no address`);
  if (!allowPrivate) {
    const blocked = answers.find((answer) => isBlockedAddress(answer.address));
    if (blocked) throw new TargetRefused(`${host} resolves to ${blocked.address}, a loopback, private, link-local or reserved address`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
