import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

/**
 * scrypt cost of new hashes: one of the minimum configurations the OWASP
 * Password Storage Cheat Sheet lists as equally strong (N=2^15, r=8, p=3
 * next to N=2^17, p=1), picked for its 32 MiB instead of 128 MiB per hash,
 * so concurrent sign-ins do not exhaust memory. About 0.3 s on one core.
 */
export const PASSWORD_PARAMS: PasswordParams = { N: 2 ** 15, r: 8, p: 3 };
/** scrypt's cost parameters. */
export interface PasswordParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Passwords people choose must be at least this long; generated ones are longer. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;
const GENERATED_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function derive(password: string, salt: Buffer, params: PasswordParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * Hashes a password with scrypt and a fresh 16-byte salt. The result holds
 * its parameters, `scrypt$N$r$p$salt$hash` (base64), so that the cost can be
 * raised later without breaking existing hashes. Runs off the event loop.
 */
export async function hashPassword(password: string, params: PasswordParams = PASSWORD_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const { N, r, p } = params;
  const key = await derive(password, salt, params);
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored` (a hashPassword result); false for a malformed hash. Constant time in the comparison. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // bounded so that a corrupted row cannot make one sign-in take minutes
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 2 ** 20 || r * p > 64) return false;
  const salt = Buffer.from(parts[4] as string, 'base64');
  const expected = Buffer.from(parts[5] as string, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/**
 * A well-formed hash with these parameters that no password matches (an
 * all-zero key): verified for unknown emails, so that they take as long as
 * known ones and the timing does not tell which emails have accounts.
 */
export function unusableHash(params: PasswordParams = PASSWORD_PARAMS): string {
  const zeros = (length: number) => Buffer.alloc(length).toString('base64');
  return ['scrypt', params.N, params.r, params.p, zeros(SALT_LENGTH), zeros(KEY_LENGTH)].join('$');
}

/** A random password of four groups of five letters and digits (about 115 bits), easy to read aloud and type. */
export function generatePassword(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = '';
    for (let i = 0; i < 5; i++) group += GENERATED_ALPHABET[randomInt(GENERATED_ALPHABET.length)];
    groups.push(group);
  }
  return groups.join('-');
}

/** Why `password` is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}
