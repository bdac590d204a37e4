import { describe, expect, it } from 'vitest';
import { PASSWORD_PARAMS, generatePassword, hashPassword, passwordProblem, unusableHash, verifyPassword } from './user.password.js';

const CHEAP = { N: 1024, r: 8, p: 1 };

describe('passwords', () => {
  it('verifies the password a hash was made from, and nothing else', async () => {
    const hash = await hashPassword('correct horse battery', CHEAP);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('stores the algorithm, its parameters and a fresh salt with the hash', async () => {
    const a = await hashPassword('same password', CHEAP);
    const b = await hashPassword('same password', CHEAP);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
  });

  it('hashes with the production cost by default', async () => {
    const hash = await hashPassword('production cost');
    expect(hash.split('$').slice(1, 4).map(Number)).toEqual([PASSWORD_PARAMS.N, PASSWORD_PARAMS.r, PASSWORD_PARAMS.p]);
    // OWASP Password Storage Cheat Sheet: the minimum scrypt configurations it lists as equally strong
    const owaspMinimums = [[2 ** 17, 8, 1], [2 ** 16, 8, 2], [2 ** 15, 8, 3], [2 ** 14, 8, 5], [2 ** 13, 8, 10]];
    expect(owaspMinimums).toContainEqual([PASSWORD_PARAMS.N, PASSWORD_PARAMS.r, PASSWORD_PARAMS.p]);
  });

  it('refuses malformed or absurdly expensive hashes without throwing', async () => {
    for (const stored of ['', 'plain', 'bcrypt$1$2$3$4$5', 'scrypt$x$8$1$AAAA$AAAA', `scrypt$${2 ** 30}$8$1$AAAAAAAAAAAAAAAAAAAAAA==$${'A'.repeat(43)}=`]) {
      expect(await verifyPassword('whatever', stored)).toBe(false);
    }
  });

  it('has an unusable hash that is well formed and matches no password', async () => {
    const hash = unusableHash(CHEAP);
    expect(hash.split('$')).toHaveLength(6);
    expect(await verifyPassword('', hash)).toBe(false);
    expect(await verifyPassword('password123', hash)).toBe(false);
  });

  it('generates long random passwords that pass the rules', () => {
    const passwords = new Set(Array.from({ length: 50 }, generatePassword));
    expect(passwords.size).toBe(50);
    for (const password of passwords) {
      expect(password).toMatch(/^[A-Za-z2-9]{5}(-[A-Za-z2-9]{5}){3}$/);
      expect(passwordProblem(password)).toBeUndefined();
    }
  });

  it('asks for at least 10 and at most 200 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem('long enough')).toBeUndefined();
  });
});
