/**
 * Sign-in throttling rules, as pure functions of the recorded failures and
 * the time, so they are tested with a fixed clock. The failures themselves
 * live in the store (user.repository.ts), shared by every server process.
 */

/** How many failures within how long lock a subject (an account or an address). */
export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
}

/**
 * Per account: 5 failed sign-ins within 15 minutes lock the email address
 * until the oldest of them is 15 minutes old. Known and unknown emails are
 * locked alike, so a lock does not reveal whether an account exists.
 */
export const ACCOUNT_LOCKOUT: LockoutPolicy = { maxFailures: 5, windowMs: 15 * 60_000 };

/**
 * Per client address: 20 failures within 15 minutes, whatever the emails,
 * which stops one address from trying a few passwords on many accounts.
 * Higher than per account because several people may share one address.
 */
export const ADDRESS_LOCKOUT: LockoutPolicy = { maxFailures: 20, windowMs: 15 * 60_000 };

/**
 * How many milliseconds until the subject may try again: 0 when it may now.
 * `failures` are the times (epoch ms) of the subject's recent failures, in
 * any order; only the newest `maxFailures` of them matter, so a repository
 * needs to return no more than that.
 */
export function lockedForMs(failures: readonly number[], now: number, policy: LockoutPolicy): number {
  const recent = failures.filter((at) => at > now - policy.windowMs).sort((a, b) => b - a);
  if (recent.length < policy.maxFailures) return 0;
  // the lock lifts when the oldest of the newest maxFailures leaves the window
  const oldestCounted = recent[policy.maxFailures - 1] as number;
  return oldestCounted + policy.windowMs - now;
}

/** Subject of the per-account rule; emails are compared lowercased. */
export function accountSubject(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

/** Subject of the per-address rule. */
export function addressSubject(address: string): string {
  return `address:${address}`;
}
