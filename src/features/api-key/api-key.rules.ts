import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { AppError } from '../../kernel/errors.js';
import { toCanonicalDateTime } from '../../kernel/formats.js';
import { toCanonicalPrefix } from '../security/firewall-rule.prefix.js';

/** How far ahead of its expiry a key is shown with a warning (the dashboard, `keys list`). */
export const EXPIRY_WARNING_DAYS = 7;
/** The longest lifetime a key can be given: ten years. */
const MAX_LIFETIME_DAYS = 3650;
/** The most CIDRs one key's allowlist holds. */
export const MAX_ALLOWED_ADDRESSES = 50;

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: DAY_MS };

/**
 * When a key given `expires` at `now` stops working, as canonical RFC 3339
 * UTC: a lifetime in hours or days (`12h`, `90d`), an RFC 3339 date-time
 * (`2027-01-31T00:00:00Z`) or a date (`2027-01-31`, midnight UTC). It must
 * lie in the future and at most ten years ahead; BAD_USER_INPUT naming
 * `expires` otherwise.
 */
export function parseExpiry(expires: string, now: Date): string {
  const text = expires.trim();
  const relative = /^(\d{1,6})([hd])$/.exec(text);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const at = relative
    ? now.getTime() + Number(relative[1]) * (UNIT_MS[relative[2] as string] ?? 0)
    : Date.parse(toCanonicalDateTime(date ? `${text}T00:00:00Z` : text) ?? '');
  // a date that does not exist (2030-02-30) would roll over into the next month
  if (Number.isNaN(at) || (date && new Date(at).toISOString().slice(0, 10) !== text)) {
    throw new AppError('BAD_USER_INPUT', `expires must be a lifetime like 12h or 90d, or an RFC 3339 date like 2027-01-31 or 2027-01-31T12:00:00Z, not "${expires}".`, {
      field: 'expires',
    });
  }
  if (at <= now.getTime() || at - now.getTime() > MAX_LIFETIME_DAYS * DAY_MS) {
    throw new AppError('BAD_USER_INPUT', `expires must lie in the future and at most ${MAX_LIFETIME_DAYS} days ahead, not "${expires}".`, { field: 'expires' });
  }
  return new Date(at).toISOString();
}

/**
 * An allowlist in canonical form: each entry a CIDR prefix of IPv4 or IPv6
 * (`10.0.0.0/8`, `2001:db8::/32`) or a bare address (a /32 or /128),
 * duplicates dropped, in the order given. BAD_USER_INPUT naming `allow` and
 * the entry for anything else, e.g. a prefix with host bits set.
 */
export function parseAllowlist(entries: readonly string[]): string[] {
  const canonical = entries.map((entry) => {
    const text = entry.trim();
    const prefix = toCanonicalPrefix(text) ?? (isIPv4(text) ? toCanonicalPrefix(`${text}/32`) : isIPv6(text) ? toCanonicalPrefix(`${text}/128`) : undefined);
    if (prefix === undefined) {
      throw new AppError(
        'BAD_USER_INPUT',
        `allow: "${entry}" is not an IPv4 or IPv6 address or CIDR prefix; write e.g. 10.0.0.0/8, 192.0.2.7 or 2001:db8::/32 (no bits set past the prefix length).`,
        { field: 'allow' },
      );
    }
    return prefix;
  });
  const unique = [...new Set(canonical)];
  if (unique.length > MAX_ALLOWED_ADDRESSES) {
    throw new AppError('BAD_USER_INPUT', `allow: at most ${MAX_ALLOWED_ADDRESSES} prefixes per key, not ${unique.length}.`, { field: 'allow' });
  }
  return unique;
}

/** The stored form of an allowlist: canonical prefixes separated by spaces; null for none (any address). */
export function storedAllowlist(prefixes: readonly string[]): string | null {
  return prefixes.length === 0 ? null : prefixes.join(' ');
}

/** The prefixes of a stored allowlist; empty for any address. */
export function allowlistOf(stored: string | null): string[] {
  return stored === null || stored === '' ? [] : stored.split(' ');
}

/**
 * Whether `address` may use a key with these canonical prefixes: true for an
 * empty list; false for an unknown address. An IPv4-mapped IPv6 address
 * (::ffff:192.0.2.7, as a dual-stack socket reports an IPv4 peer) counts as
 * its IPv4 address.
 */
export function createAddressCheck(prefixes: readonly string[]): (address: string | undefined) => boolean {
  if (prefixes.length === 0) return () => true;
  const list = new BlockList();
  for (const prefix of prefixes) {
    const [network = '', length = ''] = prefix.split('/');
    list.addSubnet(network, Number(length), isIPv4(network) ? 'ipv4' : 'ipv6');
  }
  return (address) => {
    if (address === undefined) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    if (isIPv4(plain)) return list.check(plain, 'ipv4');
    return isIPv6(plain) && list.check(plain, 'ipv6');
  };
}

/** How a key's expiry reads at `now`: none, later, within EXPIRY_WARNING_DAYS, or past. */
export type ExpiryState = 'never' | 'later' | 'soon' | 'expired';

/** The ExpiryState of a key expiring at `expiresAt` (RFC 3339, or null for never). */
export function expiryState(expiresAt: string | null, now: Date): ExpiryState {
  if (expiresAt === null) return 'never';
  const left = Date.parse(expiresAt) - now.getTime();
  if (left <= 0) return 'expired';
  return left <= EXPIRY_WARNING_DAYS * DAY_MS ? 'soon' : 'later';
}
