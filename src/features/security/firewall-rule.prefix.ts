import { isIPv4, isIPv6 } from 'node:net';

/**
 * A CIDR prefix (`10.0.0.0/8`, `2001:db8::/32`) in canonical form: the IPv6
 * address compressed and lowercased as RFC 5952 writes it, the IPv4 one as
 * given. Undefined when it is no prefix, or when the address has bits set
 * past the prefix length (`10.0.0.1/8`): a rule names a network, not a host in it.
 */
export function toCanonicalPrefix(value: string): string | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (match === null) return undefined;
  const [, address = '', lengthText = ''] = match;
  const length = Number(lengthText);
  if (isIPv4(address)) {
    if (length > 32 || hasHostBits(ipv4Bits(address), 32, length)) return undefined;
    return `${address}/${length}`;
  }
  // a zone index (fe80::1%eth0) names an interface, which a rule cannot
  if (isIPv6(address) && !address.includes('%')) {
    // the URL parser writes an IPv6 host in RFC 5952 form
    const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    if (length > 128 || hasHostBits(ipv6Bits(canonical), 128, length)) return undefined;
    return `${canonical}/${length}`;
  }
  return undefined;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((bits, octet) => (bits << 8n) | BigInt(Number(octet)), 0n);
}

/** The bits of an IPv6 address in the URL parser's form (hex groups, at most one `::`, no dotted tail). */
function ipv6Bits(address: string): bigint {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function hasHostBits(bits: bigint, width: number, length: number): boolean {
  const hostBits = BigInt(width - length);
  return (bits & ((1n << hostBits) - 1n)) !== 0n;
}
