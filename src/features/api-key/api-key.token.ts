import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Every key starts with this, so people and secret scanners can spot one. */
export const KEY_PREFIX = 'ngk_';
const SECRET_LENGTH = 32; // about 190 bits
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);
/** How much of a key is kept in clear to tell keys apart in a list. */
const VISIBLE_LENGTH = KEY_PREFIX.length + 6;

/** A new key: the value shown once, and what the store keeps of it. */
export interface GeneratedKey {
  readonly key: string;
  readonly hash: string;
  readonly prefix: string;
}

/** Generates a key `ngk_<32 random base62><6 base62 checksum>`. */
export function generateKey(): GeneratedKey {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  const body = KEY_PREFIX + secret;
  const key = body + checksum(body);
  return { key, hash: hashKey(key), prefix: key.slice(0, VISIBLE_LENGTH) };
}

/** The stored form of a key: SHA-256 of its UTF-8 bytes, hex. The key itself is never stored. */
export function hashKey(key: string): string {
  // one-shot (Node >= 20.12): no Hash object per authenticated request
  return hash('sha256', key, 'hex');
}

/**
 * True when `key` has the shape and checksum of a netgraph key. Lets garbage
 * and typos be refused without a database lookup.
 */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  const expected = Buffer.from(checksum(body));
  const actual = Buffer.from(key.slice(-CHECKSUM_LENGTH));
  return timingSafeEqual(expected, actual);
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % ALPHABET.length] + out;
    value = Math.floor(value / ALPHABET.length);
  }
  return out;
}
