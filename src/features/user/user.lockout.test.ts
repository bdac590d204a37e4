import { describe, expect, it } from 'vitest';
import { ACCOUNT_LOCKOUT, ADDRESS_LOCKOUT, accountSubject, addressSubject, lockedForMs } from './user.lockout.js';

const MINUTE = 60_000;
const policy = { maxFailures: 3, windowMs: 10 * MINUTE };
const t0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('lockedForMs', () => {
  it('allows a subject with fewer failures than the limit', () => {
    expect(lockedForMs([], t0, policy)).toBe(0);
    expect(lockedForMs([t0 - MINUTE, t0 - 2 * MINUTE], t0, policy)).toBe(0);
  });

  it('locks at the limit until the oldest counted failure leaves the window', () => {
    const failures = [t0 - 4 * MINUTE, t0 - 2 * MINUTE, t0 - MINUTE];
    expect(lockedForMs(failures, t0, policy)).toBe(6 * MINUTE);
    expect(lockedForMs(failures, t0 + 6 * MINUTE - 1, policy)).toBe(1);
    expect(lockedForMs(failures, t0 + 6 * MINUTE, policy)).toBe(0);
  });

  it('ignores failures older than the window', () => {
    expect(lockedForMs([t0 - 11 * MINUTE, t0 - 2 * MINUTE, t0 - MINUTE], t0, policy)).toBe(0);
  });

  it('counts only the newest failures, in any order', () => {
    const failures = [t0 - MINUTE, t0 - 9 * MINUTE, t0 - 3 * MINUTE, t0 - 8 * MINUTE, t0 - 2 * MINUTE];
    // the third newest is 3 minutes old: locked for 7 more minutes
    expect(lockedForMs(failures, t0, policy)).toBe(7 * MINUTE);
  });

  it('counts a failure another process recorded a moment "later" by its clock', () => {
    expect(lockedForMs([t0 + 500, t0 - MINUTE, t0 - 2 * MINUTE], t0, policy)).toBe(8 * MINUTE);
  });

  it('uses 5 per account and 20 per address within 15 minutes', () => {
    expect(ACCOUNT_LOCKOUT).toEqual({ maxFailures: 5, windowMs: 15 * MINUTE });
    expect(ADDRESS_LOCKOUT).toEqual({ maxFailures: 20, windowMs: 15 * MINUTE });
    const five = Array.from({ length: 5 }, () => t0);
    expect(lockedForMs(five.slice(0, 4), t0, ACCOUNT_LOCKOUT)).toBe(0);
    expect(lockedForMs(five, t0, ACCOUNT_LOCKOUT)).toBe(15 * MINUTE);
  });
});

describe('subjects', () => {
  it('treats emails case-insensitively and keeps accounts and addresses apart', () => {
    expect(accountSubject('  Admin@Acme.Example ')).toBe(accountSubject('admin@acme.example'));
    expect(addressSubject('10.0.0.1')).not.toBe(accountSubject('10.0.0.1'));
  });
});
